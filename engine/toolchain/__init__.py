"""GPU/toolchain detection, build plans, the process runner, results and peaks."""
