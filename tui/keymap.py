"""Every key of the app as data: one row per action, each with a stable binding id.

People remap keys by id in config (`[tool.hipport.keymap]` / `.hipport.toml` `[keymap]`,
e.g. `"review.accept" = "y,enter"`); the app passes that table to `App.set_keymap`, which
replaces all keys of the binding. Defaults follow `git add -p` (y/n, j/k undecided, J/K any)
with approve/reject aliases (a/r), lazygit's space and c, vim-style navigation.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

# Footer groups: compact groups keep the footer to the few keys used every few seconds.
DECIDE = Binding.Group("Decide", compact=True)
NAVIGATE = Binding.Group("Finding", compact=True)
FILES = Binding.Group("File", compact=True)
SEARCH = Binding.Group("Match", compact=True)


@dataclass(frozen=True)
class Key:
    id: str            # stable id used by config `keymap`
    keys: str          # default keys, comma-separated (Textual syntax)
    action: str        # action name on the screen/app
    description: str   # footer / help text
    section: str       # heading in the help screen
    show: bool = False  # in the footer
    key_display: str | None = None
    group: Binding.Group | None = None
    priority: bool = False


# The review screen (main screen). Order = order in footer and help.
REVIEW_KEYS: tuple[Key, ...] = (
    Key("review.accept", "y,a", "accept", "Accept fix", "Decide", True, "y", DECIDE),
    # while a search is active n/N move between matches (listed before reject, so n reaches them
    # first); otherwise check_action turns them off and n rejects
    Key("search.next", "n", "search_next", "Next match", "Search", True, "n", SEARCH),
    Key("search.prev", "N", "search_prev", "Previous match", "Search", True, "N", SEARCH),
    Key("search.end", "escape", "end_search", "End the search", "Search", True, "esc"),
    Key("review.reject", "n,r", "reject", "Reject fix", "Decide", True, "n", DECIDE),
    Key("review.accept_review", "Y", "accept_review", "Accept a REVIEW-tier fix (after reading its reason)",
        "Decide"),
    Key("review.identical", "I", "apply_identical",
        "Apply this decision to every identical finding in the project (same rule, same fix)", "Decide"),
    Key("review.accept_one", ".", "accept_one", "Accept only this finding (not its group)", "Decide"),
    Key("review.accept_rest", "A", "accept_rest", "Accept the rest of the file", "Decide"),
    Key("review.reject_rest", "R", "reject_rest", "Reject the rest of the file", "Decide"),
    Key("review.undo", "u", "undo", "Undo", "Decide", True),
    Key("review.redo", "ctrl+r", "redo", "Redo", "Decide"),
    Key("review.resolve_stale", "exclamation_mark", "resolve_stale",
        "Re-review a stale file (keep decisions that still match)", "Decide"),
    Key("review.style", "s", "switch_style", "Fix style", "Decide", True, "s", None),
    Key("review.style_file", "S", "switch_style_file", "Fix style for the whole file", "Decide"),
    Key("nav.next_undecided", "j", "next_undecided", "Next undecided finding or report (whole project)", "Navigate", True, "j", NAVIGATE),
    Key("nav.prev_undecided", "k", "prev_undecided", "Previous undecided finding or report (whole project)", "Navigate", True, "k",
        NAVIGATE),
    Key("nav.next_any", "J", "next_any", "Next finding (any state) or report, whole project", "Navigate"),
    Key("nav.prev_any", "K", "prev_any", "Previous finding (any state) or report, whole project", "Navigate"),
    Key("nav.next_file", "}", "next_file", "Next file", "Navigate", True, "}", FILES),
    Key("nav.prev_file", "{", "prev_file", "Previous file", "Navigate", True, "{", FILES),
    Key("view.uses", "U", "toggle_uses", "List / hide the other places of the finding's root cause (its uses)",
        "View"),
    Key("view.rule_help", "enter", "rule_help", "Full help page of the finding's rule", "View"),
    Key("search.start", "slash", "search", "Search", "Search", True, "/"),
    Key("view.wrap", "W", "toggle_wrap", "Wrap long lines / scroll sideways", "View"),
    Key("view.layout", "v", "toggle_layout", "Side by side / stacked (CUDA above HIP)", "View"),
    Key("view.overview", "O", "overview", "Overview: every finding of the project, filterable", "View"),
    Key("view.fold", "space", "toggle_fold", "Fold / unfold unchanged lines", "View"),
    Key("view.filter", "f", "filter_files", "Filter the file list", "View"),
    Key("tools.edit", "e", "edit", "Open the CUDA file in $VISUAL/$EDITOR at this line", "Files"),
    Key("tools.edit_hip", "E", "edit_hip", "Open the written HIP file in $VISUAL/$EDITOR", "Files"),
    Key("view.output", "o", "cycle_output", "Cycle output mode (in place / sibling / folder)", "View"),
    Key("file.write", "w", "write", "Write", "Files", True),
    Key("git.commit", "c", "commit", "Commit", "Files", True),
    Key("run.start", "b", "build_run", "Build+run", "Run", True),
    Key("run.stop", "ctrl+k", "stop_run", "Stop the run", "Run"),
    Key("run.platform", "P", "pick_platform",
        "Run on AMD / on NVIDIA through HIP's NVIDIA platform (--platform nvidia)", "Run"),
    Key("run.device", "G", "pick_device", "Next GPU for runs (HIP_VISIBLE_DEVICES)", "Run"),
    Key("run.jump", "x", "jump_diagnostic", "Jump to the next build diagnostic", "Run"),
    Key("run.doctor", "D", "doctor", "Toolchain doctor", "Run"),
    Key("app.theme", "t", "cycle_theme", "Next theme", "App"),
    Key("app.help", "question_mark,f1", "help", "Help", "App", True, "?"),
    Key("app.quit", "q", "quit_app", "Quit", "App", True),
)

# Scroll keys are the DiffView's own (arrows, page keys, home/end); listed for the help screen.
SCROLL_KEYS: tuple[tuple[str, str], ...] = (
    ("up / down", "Move the cursor line"),
    ("pageup / pagedown", "Scroll a page"),
    ("home / end", "First / last line"),
    ("left / right", "Scroll sideways"),
    ("tab / shift+tab", "Move focus between panes"),
    ("ctrl+p", "Command palette (every action)"),
)


def bindings(keys: tuple[Key, ...] = REVIEW_KEYS) -> list[Binding]:
    return [
        Binding(
            k.keys,
            k.action,
            k.description,
            show=k.show,
            key_display=k.key_display,
            id=k.id,
            group=k.group,
            priority=k.priority,
        )
        for k in keys
    ]


def by_id(binding_id: str) -> Key:
    for k in REVIEW_KEYS:
        if k.id == binding_id:
            return k
    raise KeyError(binding_id)


def effective_keys(keymap: dict[str, str] | None = None) -> list[tuple[Key, str]]:
    """Each key row with the keys in force after the person's remapping."""
    keymap = keymap or {}
    return [(k, keymap.get(k.id, k.keys)) for k in REVIEW_KEYS]
