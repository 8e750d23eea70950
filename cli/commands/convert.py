"""`hipport convert PATH... [-o OUT | --in-place | --suffix] [--diff]`: CUDA -> HIP on files and trees.

One file without an output option prints the HIP text to stdout. OUT is a file when one file is
converted, a folder (mirroring the tree) otherwise. Every write is atomic (temp file, fsync,
rename), and no content is lost: --in-place keeps the original as `<file>.prehip` (hipify-clang's
name) unless --no-backup, and any other content a write replaces is kept as the next free
`<file>.prehip.N` (engine/outputs.py). Reports (what could not be translated) go to stderr as
`file:line:col: kind: message`. Options mean what hipify-clang's options of the same name mean.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hipport.cli.main import CliError

if TYPE_CHECKING:
    from hipport.engine.pipeline.convert import ConvertResult, Written
    from hipport.engine.pipeline.files import FileResult
    from hipport.engine.translate.options import TranslateOptions
    from hipport.engine.walk import WalkItem


def add_translate_options(p: argparse.ArgumentParser) -> None:
    """The translation options convert and scan share (names follow hipify-clang). Each one given
    overrides the same key of the project's [tool.hipport] (engine/config.py); defaults come from there."""
    g = p.add_argument_group("translation (hipify-clang's option names; defaults from [tool.hipport])")
    g.add_argument("--rocm", default=None, metavar="X.Y",
                   help="target ROCm release; names HIP added later are reported (default: 7.0)")
    g.add_argument("--hip-kernel-execution-syntax", "-hip-kernel-execution-syntax", dest="ggl",
                   action="store_true", help="rewrite <<<...>>> launches as hipLaunchKernelGGL(...)")
    g.add_argument("--cuda-kernel-execution-syntax", "-cuda-kernel-execution-syntax", dest="cuda_syntax",
                   action="store_true", help="keep <<<...>>> launches (the default; --hip-kernel-execution-syntax wins)")
    g.add_argument("--roc", "-roc", action="store_true",
                   help="use rocBLAS/rocSPARSE/rocRAND/rocSOLVER/MIOpen names instead of hip*")
    g.add_argument("--miopen", "-miopen", action="store_true",
                   help="use MIOpen names for cuDNN instead of hipDNN (with --roc: what --roc already does)")
    g.add_argument("--experimental", "-experimental", action="store_true",
                   help="also translate names HIP marks experimental")
    g.add_argument("--use-hip-data-types", "-use-hip-data-types", dest="hip_data_types", action="store_true",
                   help="use hipDataType instead of hipblasDatatype_t / rocblas_datatype")
    g.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                   help="include folder for the AST mode")
    g.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                   help="macro definition for the AST mode and --skip-excluded-preprocessor-conditional-blocks")
    g.add_argument("--skip-excluded-preprocessor-conditional-blocks", "-skip-excluded-preprocessor-conditional-blocks",
                   "--default-preprocessor", "-default-preprocessor", "--skip-inactive", dest="skip_inactive",
                   action="store_true",
                   help="leave #if branches that the preprocessor leaves inactive untouched (CUDA host pass, "
                   "the CUDA headers' macros, -D definitions); conditions it cannot decide count as active")
    g.add_argument("--amap", "-amap", action="store_true",
                   help="hipify as much as possible: rename CUDA names in skipped #if branches too")
    g.add_argument("--translate-comments", action="store_true", help="also rename CUDA names in comments")
    g.add_argument("--shims", action=argparse.BooleanOptionalAction, default=None,
                   help="insert exact replacements for what the target ROCm lacks (the default; mapping/shims.tsv: "
                        "cg::reduce, umin/umax, *_system/*_block atomics, missing overloads, ...), each reported as "
                        "info and counted in the summary; --no-shims reports those names instead")
    g.add_argument("--translate-strings", action=argparse.BooleanOptionalAction, default=None,
                   help="rename a string literal's space-separated words that are CUDA names, as hipify-clang "
                   "does (default); --no-translate-strings keeps literals byte for byte")
    g.add_argument("--ast", choices=("auto", "on", "off"), default=None,
                   help="libclang AST mode: auto (when a clang resource dir and CUDA headers exist), on, off "
                        "(default: auto)")
    g.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="worker processes for large trees (default: all cores when it pays off)")


def cli_settings(args: argparse.Namespace) -> Any:
    """config.Config for the paths: the project's [tool.hipport] with every option given laid over it."""
    from hipport.engine.api import settings
    from hipport.engine.config import ConfigError

    flag = {True: True, False: None}  # a store_true flag not given leaves the project's value
    clang_defines, clang_includes = clang_arguments(getattr(args, "clang_args", None) or [])
    defines, include_dirs = [*args.defines, *clang_defines], [*args.include_dirs, *clang_includes]
    overrides = {
        "rocm": ("--rocm", args.rocm),
        "launch_syntax": ("--hip-kernel-execution-syntax", "ggl" if args.ggl else None),
        "roc": ("--roc", flag[args.roc]),
        "miopen": ("--miopen", flag[args.miopen]),
        "experimental": ("--experimental", flag[args.experimental]),
        "hip_data_types": ("--use-hip-data-types", flag[args.hip_data_types]),
        "include_dirs": ("-I", tuple(include_dirs) or None),
        "defines": ("-D", tuple(defines) or None),
        "skip_inactive": ("--skip-excluded-preprocessor-conditional-blocks", flag[args.skip_inactive]),
        "amap": ("--amap", flag[args.amap]),
        "translate_comments": ("--translate-comments", flag[args.translate_comments]),
        "translate_strings": ("--translate-strings", args.translate_strings),
        "shims": ("--shims", getattr(args, "shims", None)),
        "ast": ("--ast", args.ast),
        "fix_style": ("--fix-style", getattr(args, "fix_style", None)),
        "archs": ("--arch", tuple(getattr(args, "archs", ())) or None),
    }
    try:
        cfg = settings(args.paths, overrides)
    except ConfigError as e:
        raise CliError(str(e)) from None
    if cfg.ast == "on":
        from hipport.engine.translate import semantic

        why = semantic.unavailable_reason()
        if why is not None:
            raise CliError(f"--ast on: AST mode unavailable: {why}")
    return cfg


def translate_options(args: argparse.Namespace, cfg: Any = None) -> Any:
    """translate.TranslateOptions of the settings (outputs are named by convert's own options, so the
    build-script naming mode stays "folder")."""
    from hipport.engine.api import translate_options as options_of

    return options_of(cfg if cfg is not None else cli_settings(args), output_mode="folder")


# clang options (after `--`) that take their value as the next word; others are one word
_CLANG_VALUE_OPTIONS = frozenset({"-D", "-U", "-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros",
                                  "-x", "-Xclang", "-o", "-MF", "-MT", "-MQ", "-target", "-arch", "-Xlinker"})


def clang_arguments(words: list[str]) -> tuple[list[str], list[str]]:
    """(-D definitions, -I folders) among the clang arguments hipify-clang takes after `--`; the rest
    (-x cuda, -std=, -v, -ferror-limit=, -Xclang X, -W...) only tunes a compiler hipport does not run."""
    defines: list[str] = []
    includes: list[str] = []
    k = 0
    while k < len(words):
        w = words[k]
        value = None
        if w in _CLANG_VALUE_OPTIONS:
            value = words[k + 1] if k + 1 < len(words) else ""
            k += 1
        if w == "-D" or (w.startswith("-D") and len(w) > 2):
            defines.append(value if value is not None else w[2:])
        elif w in ("-I", "-isystem") or (w.startswith("-I") and len(w) > 2):
            includes.append(value if value is not None else w[2:])
        k += 1
    return defines, includes


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("convert", help="translate CUDA files or trees to HIP",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="CUDA/C++/Python files or folders")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="OUT",
                     help="output file (one input file) or folder (several files or a folder)")
    out.add_argument("--in-place", "--inplace", "-inplace", dest="in_place", action="store_true",
                     help="overwrite the inputs (keeps <file>.prehip unless --no-backup)")
    out.add_argument("--suffix", action="store_true",
                     help="write beside each input: gemm.cu -> gemm.hip, util.h -> util_hip.h")
    p.add_argument("--no-backup", "-no-backup", action="store_true", help="with --in-place: keep no .prehip copy")
    p.add_argument("--diff", action="store_true",
                   help="print a unified diff (writes nothing unless an output option is given)")
    p.add_argument("-q", "--quiet", action="store_true", help="print no reports, only errors")
    from hipport.cli.commands._warp import add_warp_options  # warp fixes (engine/warp)

    add_warp_options(p, fixes=True)
    add_translate_options(p)
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from hipport.engine.pipeline.convert import ConvertError, ConvertRequest, conversion_targets, convert

    cfg = cli_settings(args)
    options = translate_options(args, cfg)
    items = _walked(args)
    if args.no_backup and not args.in_place:
        raise CliError("--no-backup only applies to --in-place")
    writes_files = bool(args.output or args.in_place or args.suffix)
    to_stdout = not writes_files and not args.diff
    if to_stdout and (len(items) > 1 or items[0].root is not None):
        raise CliError("several files: give -o OUT (a folder), --in-place or --suffix (or --diff to preview)")
    if writes_files and not args.in_place:
        items = _without_earlier_ports(items, options, args)
    try:
        targets = conversion_targets(items, Path(args.output) if args.output else None, in_place=args.in_place,
                                     suffix=args.suffix)
    except ConvertError as e:
        raise CliError(str(e)) from None
    from hipport.cli.commands._warp import warp_settings

    fixes, style, warp_options = warp_settings(args, cfg)
    allow_review = getattr(args, "fixes_review", False)
    if allow_review and style is None:
        raise CliError("--fixes-review only applies with a 64-wide --fix-style (wave64 or portable)")
    request = ConvertRequest(items, targets, options, fixes=fixes, style=style, warp_options=warp_options,
                             allow_review=allow_review, render=writes_files or to_stdout, diff=args.diff,
                             in_place=args.in_place, keep_original=not args.no_backup,
                             renamed_outputs=args.suffix, jobs=args.jobs)
    result = convert(request, lambda res: _show_file(res, args, to_stdout))
    _show_writes(result.writes, args)
    if not to_stdout or not args.quiet:
        _show_summary(result, fixes == "none", options)
    return 1 if result.failed or result.not_written else 0


def _walked(args: argparse.Namespace) -> list[WalkItem]:
    """The files under the paths (walk.WalkItem), the output folder left out."""
    from hipport.engine.walk import WalkError, walk

    try:
        items = walk(args.paths, skip=_skip_for(args))
    except WalkError as e:
        raise CliError(str(e)) from None
    if not items:
        raise CliError("no CUDA, C++ or Python files under " + ", ".join(args.paths))
    return items


def _show_file(res: FileResult, args: argparse.Namespace, to_stdout: bool) -> None:
    """One file's lines as its port comes in: its error, or its reports and held groups (stderr), its
    diff and, for one file without an output option, its HIP text (stdout)."""
    from hipport.engine.messages import one_line  # one message, one line, whatever the file names

    err = sys.stderr
    if res.error:
        print(f"hipport: {one_line(res.error)}", file=err)
        return
    if not args.quiet:
        for r in res.reports:
            print(one_line(f"{res.path}:{r['line']}:{r['col']}: {r['kind']}: {r['message']}"), file=err)
        for gid, why in res.held.items():
            print(one_line(f"{res.path}: fix group {gid} kept as logical warps, not 64-wide: {why}"), file=err)
    if args.diff and res.diff:
        sys.stdout.write(res.diff)
    if to_stdout and res.output is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(res.output)
        sys.stdout.buffer.flush()


def _show_writes(writes: list[Written], args: argparse.Namespace) -> None:
    """What each write kept aside (nothing is lost: engine/outputs.py), or why it failed."""
    from hipport.engine.messages import one_line
    from hipport.engine.outputs import original_copy

    err = sys.stderr
    for w in writes:
        if w.error is not None:
            print(f"hipport: {one_line(w.error)}", file=err)
        elif w.kept is not None and not args.in_place:
            print(one_line(f"hipport: {w.target} already existed with other content; kept it as {w.kept}"), file=err)
        elif w.kept is not None and w.kept != original_copy(w.target):
            print(one_line(f"hipport: {w.target}: {original_copy(w.target).name} keeps its original; what it held "
                           f"before this conversion is kept as {w.kept.name}"), file=err)


def _show_summary(result: ConvertResult, plain: bool, options: TranslateOptions) -> None:
    from hipport.engine.translate.cuda_features import summarize, summary_line

    err = sys.stderr
    mode = "/".join(sorted(result.modes)) or "-"
    unwritten = f", {result.not_written} not written" if result.not_written else ""
    print(f"hipport convert: {result.translated} of {result.files} file(s) translated, {result.changed} changed"
          f"{unwritten}, {len(result.reports)} report(s); mode: {mode}", file=err)
    counts = summarize(result.reports)
    if counts:
        print(f"hipport convert: reports by kind: {summary_line(counts)}", file=err)
    line = result.warp.summary(plain)
    if line:
        print(f"hipport convert: {line}", file=err)
    if result.replaced:
        print(f"hipport convert: exact replacements for what ROCm {'.'.join(map(str, options.rocm))} lacks "
              "(--no-shims leaves them out): " + ", ".join(
                  f"{nm} ({n} file{'s' if n > 1 else ''})" for nm, n in sorted(result.replaced.items())), file=err)


def _without_earlier_ports(items: list[Any], options: Any, args: argparse.Namespace) -> list[Any]:
    """The walked files less the ports of earlier runs among them (engine/ports.py), said in one line."""
    from hipport.engine.messages import one_line
    from hipport.engine.ports import earlier_ports

    ports = earlier_ports(items, options)
    if not ports:
        return items
    skipped = {id(p.item) for p in ports}
    if not args.quiet:
        names = ", ".join(f"{p.item.path} (of {p.of})" for p in ports[:3]) + (" ..." if len(ports) > 3 else "")
        print(one_line(f"hipport: skipped {len(ports)} earlier port(s) of files in this conversion: {names}; "
                       "name a file on the command line to convert it anyway"), file=sys.stderr)
    kept = [it for it in items if id(it) not in skipped]
    if not kept:
        raise CliError("every file found is the port of another one; name a file to convert it anyway")
    return kept


def _skip_for(args: argparse.Namespace) -> list[str]:
    """Leave the output folder out of the walk when it lies inside an input folder."""
    if not args.output:
        return []
    out = Path(args.output).resolve()
    skip: list[str] = []
    for p in args.paths:
        root = Path(p).resolve()
        if root.is_dir():
            try:
                skip.append(out.relative_to(root).as_posix())
            except ValueError:
                pass
    return skip
