"""The `hipport` command. Each subcommand lives in cli/commands/<name>.py and exposes
`register(subparsers)`; modules import the engine lazily so `hipport convert` starts fast
(Textual is imported only by the commands that open the app)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import sys
from collections.abc import Sequence

# subcommand module names, in the order `hipport --help` lists them
COMMANDS = ("open", "demo", "convert", "scan", "explain", "run", "doctor")


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 2, no traceback."""


class _DeprecatedJson(argparse.Action):
    """`--json`: the old spelling of `--format json`, still accepted, with a note on stderr."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print("hipport: --json is deprecated; use --format json", file=sys.stderr)
        setattr(namespace, self.dest, "json")


def add_format_option(p: argparse.ArgumentParser, formats: Sequence[str] = ("text", "json"), help: str = "") -> None:
    """The one output-format convention of every command: `--format text|json|...` (default text), and
    `--json`, the deprecated spelling of `--format json`."""
    p.add_argument("--format", choices=list(formats), default="text",
                   help=help or f"output format: {', '.join(formats)} (default: text)")
    p.add_argument("--json", dest="format", nargs=0, action=_DeprecatedJson,
                   help="deprecated: the same as --format json")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hipport",
        description="Port CUDA projects to HIP for AMD Instinct (wave64) GPUs.",
    )
    from hipport.engine import __version__

    parser.add_argument("--version", action="version", version=f"hipport {__version__}")
    parser.add_argument(ANY_FOLDER, action="store_true",
                        help="let any command work on / or your home folder (refused otherwise); accepted "
                             "anywhere in the command line")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"hipport.cli.commands.{name}")
        except ModuleNotFoundError as e:  # a command not built yet must not break the others
            if e.name == f"hipport.cli.commands.{name}":
                continue
            raise
        mod.register(sub)
    return parser


ANY_FOLDER = "--any-folder"


def _take_any_folder(words: list[str]) -> tuple[list[str], bool]:
    """`--any-folder` anywhere before a `--` (before or after the command and its paths): the words
    without it, and whether it was given."""
    end = words.index("--") if "--" in words else len(words)
    head = [w for w in words[:end] if w != ANY_FOLDER]
    return head + words[end:], len(head) != end


def refuse_whole_trees(args: argparse.Namespace) -> None:
    """The app's rule for every command that walks a folder: not `/`, not the home folder (project.root),
    unless --any-folder. `open` asks its own questions (cli/commands/open.py)."""
    if args.command in (None, "open") or getattr(args, "any_folder", False):
        return
    from pathlib import Path

    from hipport.engine.project.root import not_a_project, refusal

    paths = getattr(args, "paths", None) or ([args.path] if isinstance(getattr(args, "path", None), str) else [])
    for p in paths:
        folder = Path(p).expanduser()
        if folder.is_dir():
            what = not_a_project(folder)
            if what is not None:
                raise CliError(refusal(folder, what, {"doctor": "check"}.get(args.command, args.command)))


def main(argv: Sequence[str] | None = None) -> int:
    args_list, any_folder = _take_any_folder(list(sys.argv[1:] if argv is None else argv))
    # `hipport [PATH]` opens the app on a project: treat a first argument that is not a
    # subcommand (or option) as a path for `open`.
    if not args_list or (args_list[0] not in COMMANDS and not args_list[0].startswith("-")):
        args_list = ["open", *args_list]
    parser = build_parser()
    # hipify-clang's `PATH... -- ARGS`: after the paths, what follows `--` is for clang (-D and -I are
    # used, the rest is ignored). Without a path before it, `--` keeps its usual meaning (`-- -a.cu`).
    clang_args: list[str] = []
    if args_list[0] in ("convert", "scan") and "--" in args_list:
        k = args_list.index("--")
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                parser.parse_args(args_list[:k])
            args_list, clang_args = args_list[:k], args_list[k + 1 :]
        except SystemExit:
            pass
    args = parser.parse_args(args_list)
    args.clang_args = clang_args
    args.any_folder = any_folder or getattr(args, "any_folder", False)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        refuse_whole_trees(args)
        return int(func(args) or 0)
    except CliError as e:
        from hipport.engine.messages import one_line

        print(f"hipport: {one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hipport: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a hipport bug: one line for the person, the traceback on request
        if os.environ.get("HIPPORT_DEBUG"):
            raise
        from hipport.engine.messages import one_line

        print(f"hipport: internal error ({type(e).__name__}: {one_line(str(e))}); this is a hipport bug, please report it "
              "(HIPPORT_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 3
