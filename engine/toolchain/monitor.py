"""Live GPU utilisation and memory while a run is going (amd-smi, rocm-smi, or nvidia-smi).

API:
    usage_command(vendor, env) -> list[str] | None    # what to poll, None when no tool is there
    parse_usage(argv, text) -> list[Usage]
    async for readings in poll(vendor, interval=1.0): ...    # for the app; stops when cancelled
    sample(vendor) -> list[Usage]                       # one reading, for the CLI
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Mapping

from .parsers import Usage, amdsmi_usage, parse_nvidia_smi_usage, rocmsmi_usage
from .runner import RunnerError, capture

_NVIDIA_USAGE = "index,utilization.gpu,memory.used,memory.total"


def usage_command(vendor: str, env: Mapping[str, str] | None = None) -> list[str] | None:
    path = (env or os.environ).get("PATH")
    if vendor == "nvidia":
        if shutil.which("nvidia-smi", path=path):
            return ["nvidia-smi", f"--query-gpu={_NVIDIA_USAGE}", "--format=csv,noheader,nounits"]
        return None
    if shutil.which("amd-smi", path=path):
        return ["amd-smi", "metric", "--usage", "--mem-usage", "--json"]
    if shutil.which("rocm-smi", path=path):
        return ["rocm-smi", "--showuse", "--showmemuse", "--json"]
    return None


def parse_usage(argv: list[str], text: str) -> list[Usage]:
    tool = os.path.basename(argv[0])
    if tool == "nvidia-smi":
        return parse_nvidia_smi_usage(text)
    if tool == "amd-smi":
        return amdsmi_usage(text)
    return rocmsmi_usage(text)


def sample(vendor: str, env: Mapping[str, str] | None = None, timeout: float = 3.0) -> list[Usage]:
    argv = usage_command(vendor, env)
    if argv is None:
        return []
    try:
        code, out = capture(argv, env, timeout)
    except RunnerError:
        return []
    return parse_usage(argv, out) if code == 0 else []


async def poll(vendor: str, interval: float = 1.0, env: Mapping[str, str] | None = None) -> AsyncIterator[list[Usage]]:
    """Readings every `interval` seconds; each poll is a child process with a timeout."""
    argv = usage_command(vendor, env)
    if argv is None:
        return
    while True:
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                stdin=asyncio.subprocess.DEVNULL,
            )
            try:
                out, _err = await asyncio.wait_for(proc.communicate(), timeout=max(interval * 3, 3.0))
            except TimeoutError:
                proc.kill()
                await proc.wait()
                out = b""
            except asyncio.CancelledError:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
                raise
            yield parse_usage(argv, out.decode("utf-8", errors="replace"))
        except OSError:
            return
        await asyncio.sleep(interval)


def format_usage(readings: list[Usage], index: int | None = None) -> str | None:
    for u in readings:
        if index is not None and u.index != index:
            continue
        bits = [f"GPU {u.index}"]
        if u.busy_percent is not None:
            bits.append(f"{u.busy_percent:.0f}% busy")
        if u.mem_used_mib is not None:
            total = f"/{u.mem_total_mib:.0f}" if u.mem_total_mib else ""
            bits.append(f"{u.mem_used_mib:.0f}{total} MiB")
        return ", ".join(bits)
    return None
