"""The review screen's whole-project parts: `ProjectRows`, the project view (session entries merged with
the background analysis) kept row by row so a key press does not walk 5,000 files; the file list's
rows from it; and the header line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hipport.engine.project.analysis import (
    FileView,
    ProjectAnalysis,
    ProjectState,
    ProjectView,
    file_view,
    project_view,
)
from hipport.engine.review import ReviewSession

from ..labels import STATE_COLOUR, STATE_SYMBOL
from ..widgets.file_list import FileItem, FileList


def file_item(row: FileView) -> FileItem:
    counts = f"{row.decided}/{row.findings}" if row.findings else ""
    if row.unsupported:
        counts += f" {row.unsupported}?"
    return FileItem(row.rel, row.state.value, STATE_SYMBOL[row.state], counts.strip(),
                    STATE_COLOUR.get(row.state, "muted"))


class ProjectRows:
    """The project's rows and totals. Built in full once (and after `invalidate`); after that single rows
    are updated (`touch`), and the file list is given only the rows that changed."""

    def __init__(self, session: ReviewSession, analysis: Callable[[], ProjectAnalysis | None]) -> None:
        self.session = session
        self.analysis = analysis          # the app's background analysis (None: there is none)
        self._rows: dict[str, FileView] = {}
        self._dirty: set[str] = set()     # rows changed since the file list last showed them
        self._items_built = False         # the file list shows every row of self._rows

    def view(self) -> ProjectView:
        analysis = self.analysis()
        if not self._rows:
            full = project_view(self.session, analysis)
            self._rows = {r.rel: r for r in full.rows}
            self._items_built = False  # the file list is rebuilt from these rows
            return full
        return ProjectView.of(list(self._rows.values()), analysis.error if analysis is not None else None)

    def row(self, rel: str) -> FileView | None:
        return self._rows.get(rel)

    def touch(self, rel: str) -> None:
        """The file's row again (its decisions, state or summary may have changed)."""
        if rel not in self._rows:
            return
        analysis = self.analysis()
        summary = analysis.summary(rel) if analysis is not None else None
        row = file_view(self.session, self.session.entry(rel), summary)
        if row != self._rows[rel]:
            self._rows[rel] = row
            self._dirty.add(rel)

    def invalidate(self) -> None:
        """Something may have changed many files (write, commit, output mode, rescan): rebuild."""
        self._rows = {}

    def show_in(self, files: FileList, current: str | None, view: ProjectView) -> None:
        """Bring the file list up to date: only the rows that changed, or all of them after a rebuild."""
        dirty, self._dirty = self._dirty, set()
        if self._items_built:
            files.update_items({rel: file_item(self._rows[rel]) for rel in dirty if rel in self._rows}, current)
        else:
            files.set_items([file_item(e) for e in view.rows], current)
            self._items_built = True
        files.set_progress(view.done, view.total, view.stopped)

    def may_stop_in(self, rel: str, undecided_only: bool) -> bool:
        """Whether the project view says the file has something j/k (or J/K) stop at; a file not analysed
        yet may."""
        row = self._rows.get(rel)
        if row is None or row.state is ProjectState.NOT_ANALYSED:
            return True
        if row.state is ProjectState.ERROR:
            return False
        open_findings = row.findings - row.decided if undecided_only else row.findings
        return open_findings > 0 or row.unsupported > 0


@dataclass(frozen=True)
class Header:
    """What the header line says besides the project's counts."""

    file_row: FileView | None   # the shown file's row
    last_message: str
    branch: str
    note: str                   # why this folder is the project


def header_line(session: ReviewSession, view: ProjectView, header: Header) -> str:
    # counts first: a narrow terminal cuts the end of the line, and the counts are what changes
    parts: list[str] = []
    if view.final:
        parts.append(f"all {view.decided}/{view.findings} decided")
    elif view.stopped:
        parts.append(f"analysis stopped ({view.stopped}): {view.decided}/{view.findings}+ decided")
    else:
        parts.append(f"analysing… {view.done}/{view.total} files: {view.decided}/{view.findings}+ decided")
    row = header.file_row
    if row is not None:
        parts.append(f"{row.rel} {row.decided}/{row.findings}")
    kinds = view.report_kinds()  # split by kind, as `hipport convert` and `scan` count them
    if kinds:
        parts.append(", ".join(f"{n} {kind}" for kind, n in kinds.items()))
    unwritten = len(session.unwritten())
    if unwritten:
        parts.append(f"{unwritten} unwritten")
    if header.last_message:
        parts.append(header.last_message)
    parts += [session.root.name, header.branch,
              f"{session.config.fix_style.value} · {session.config.output_mode}"]
    if header.note:
        parts.append(header.note)
    return " · ".join(parts)
