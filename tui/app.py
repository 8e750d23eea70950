"""The porting app: `PortApp(session)` shows one ReviewScreen over an engine ReviewSession.

The app holds the engine session (built by `hipport [PATH]` / `hipport demo`) and is the only place
that mutates it (through the ReviewScreen). Themes come from `themes/*.toml`; keys from
`tui/keymap.py`, remapped by binding id from the project config.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Iterable
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES, Theme

from hipport.engine.config import Config, unknown_name

from .keymap import REVIEW_KEYS
from .opening import first_file

if TYPE_CHECKING:
    from textual.message import Message

    from hipport.engine.config import Config
    from hipport.engine.project.analysis import ProjectAnalysis
    from hipport.engine.review import ReviewSession

# themes offered by `t`, in order; the ansi ones use the terminal's own 16 colours
THEME_CYCLE = ("hipport-dark", "hipport-light", "ansi-dark", "ansi-light")


def load_themes() -> list[Theme]:
    """Every `themes/*.toml` as a Textual Theme (tomllib -> Theme(**data))."""
    themes: list[Theme] = []
    folder = resources.files("hipport.themes")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        data: dict[str, Any] = tomllib.loads(entry.read_text(encoding="utf-8"))
        themes.append(Theme(**data))
    return themes


def check_settings(config: Config) -> None:
    """The app's own names in the settings, checked when the app loads them (engine/config.py checks the
    rest at load): the binding ids of `keymap` and the `theme`. ConfigError naming the nearest known name."""
    where = config.origin or "<settings>"
    ids = {k.id for k in REVIEW_KEYS}
    for binding_id in config.keymap:
        if binding_id not in ids:
            raise unknown_name(f"{where}: keymap", "binding id", binding_id, ids)
    themes = {*BUILTIN_THEMES, *(t.name for t in load_themes())}
    if config.theme not in themes:
        raise unknown_name(where, "theme", config.theme, themes)


def with_diff_variables(variables: dict[str, str]) -> dict[str, str]:
    """Fill the $diff-* variables a theme did not define, from its error/success/secondary colours."""
    variables.setdefault("diff-removed", f"{variables.get('error', 'red')} 18%")
    variables.setdefault("diff-added", f"{variables.get('success', 'green')} 18%")
    variables.setdefault("diff-removed-word", f"{variables.get('error', 'red')} 40%")
    variables.setdefault("diff-added-word", f"{variables.get('success', 'green')} 40%")
    variables.setdefault("diff-cursor", f"{variables.get('secondary', 'blue')} 25%")
    return variables


class PortApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "hipport"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit_app", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        session: ReviewSession,
        config: Config | None = None,
        *,
        theme: str | None = None,
        ansi_color: bool = False,
        analysis: ProjectAnalysis | bool | None = True,
        root_note: str = "",
    ) -> None:
        super().__init__(ansi_color=ansi_color)
        self.session = session
        self.config = config if config is not None else getattr(session, "config", None)
        for t in load_themes():
            self.register_theme(t)
        wanted = theme or getattr(self.config, "theme", None) or "hipport-dark"
        if wanted not in self.available_themes:
            self._bad_theme = wanted
            wanted = "hipport-dark"
        else:
            self._bad_theme = None
        self.theme = wanted
        self.keymap_overrides: dict[str, str] = dict(getattr(self.config, "keymap", {}) or {})
        self.held_keys: dict[str, str] = {}  # the config's keys that start a build, until the project is trusted
        root = getattr(session, "root", None)
        self.sub_title = str(root) if root else ""
        self.root_note = root_note  # why this folder is the project (shown in the header)
        # the whole project is analysed in the background once the first screen is up (analysis=False:
        # not at all, e.g. benchmarks of one file; a ProjectAnalysis: that one, e.g. a test's)
        self.analysis: ProjectAnalysis | None = None
        entries = session.files()  # one pass over the files serves the analysis and the first file
        self.first_file = first_file(session, entries)
        if analysis is True:
            from hipport.engine.project.analysis import ProjectAnalysis

            # made here, before Textual captures stdout/stderr (a process pool must start its helper
            # processes with the real ones); started once the first screen is up
            self.analysis = ProjectAnalysis(session, rels=[e.rel for e in entries])
        elif analysis is not False and analysis is not None:
            self.analysis = analysis
        self._analysis_started = False
        # translate + analyse the first file while Textual starts: libclang's parse runs outside
        # the GIL, so this overlaps the app's own start-up (the screen then finds it loaded)
        threading.Thread(target=self._preload, name="hipport-preload", daemon=True).start()

    def _preload(self) -> None:
        try:
            rel = self.first_file
            if rel is not None:
                self.session.load(rel)
        except Exception:
            pass  # the screen loads it again and shows the error where the person can see it

    def get_css_variables(self) -> dict[str, str]:
        # custom variables must exist for every theme (built-in ones too), derived from its colours
        return with_diff_variables(super().get_css_variables())

    def watch_theme(self, theme: str) -> None:
        # the terminal's own 16 colours cannot blend a tinted cursor row: ansi themes reverse it
        self.set_class(self.current_theme.ansi, "-ansi")

    def on_mount(self) -> None:
        from .screens.review import ReviewScreen

        self.set_class(self.current_theme.ansi, "-ansi")
        if self.keymap_overrides:  # binding ids checked with the settings (check_settings)
            self._hold_build_keys()
            self.set_keymap(self.keymap_overrides)
        if self._bad_theme:
            self.notify(f"Unknown theme {self._bad_theme!r}; using hipport-dark.", severity="warning")
        self.push_screen(ReviewScreen(self.session))
        self.call_after_refresh(self.start_analysis)

    def _hold_build_keys(self) -> None:
        """A repository's keymap must not turn a key the person presses for something else into a build:
        its bindings of the keys that start one apply only once the project is trusted (trust.py)."""
        root = getattr(self.session, "root", None)
        if self.config is None or root is None:
            return
        from hipport.engine.toolchain.trust import build_keys, is_trusted, subject

        held = build_keys(self.config)
        if not held or is_trusted(subject(Path(root), self.config)):
            return
        self.held_keys = held
        for k in held:
            self.keymap_overrides.pop(k, None)
        keys = ", ".join(f"{k} = {v!r}" for k, v in held.items())
        self.notify(f"The project's keymap binds keys that start a build ({keys}): not applied until you trust "
                    "the project (the first build asks).", severity="warning", timeout=10)

    def on_run_pane_trusted(self, message: Message) -> None:
        if self.held_keys:
            self.keymap_overrides.update(self.held_keys)
            self.held_keys = {}
            self.set_keymap(self.keymap_overrides)

    def start_analysis(self) -> None:
        if self.analysis is not None and not self._analysis_started:
            self._analysis_started = True
            self.analysis.start()

    def on_unmount(self) -> None:
        if self.analysis is not None:
            self.analysis.cancel()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        from .screens.review import ReviewScreen

        if isinstance(screen, ReviewScreen):
            # one palette entry per review action, named as in the help screen
            for key in REVIEW_KEYS:
                action = key.action
                yield SystemCommand(
                    key.description,
                    f"{key.id} ({key.keys})",
                    partial(screen.run_action, action),
                )

    def action_cycle_theme(self) -> None:
        names = [n for n in THEME_CYCLE if n in self.available_themes]
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        self.notify(f"Theme: {self.theme}", timeout=2)

    async def action_quit_app(self) -> None:
        screen = self.screen
        if hasattr(screen, "action_quit_app") and screen is not self:
            await screen.run_action("quit_app")
        else:
            self.exit(0)

