import sys
sys.path.insert(0, "/work/main/tests/tui")
from test_app_keys import *  # noqa

async def test_dbg(project):
    app = make_app(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        dv = screen.query_one(DiffView)
        print("scroll", dv.scroll_y, dv.size, dv.cursor)
        for y in range(dv.size.height):
            print(repr(dv.render_line(y).text[:100]))
