"""Token-level warp-width analysis of C++/CUDA/HIP text: the passes, in order.

The analysis follows values derived from `threadIdx` (thread ids, lane ids, warp ids), ballot and
activemask results, mask constants and warp-size constants (macros, `constexpr`, `static const`)
through assignments, small device helpers that return a lane id, and macros. The passes live in
`device.py`/`forms.py` (device code), `host.py` (host code) and `filelevel.py` (constants, directives);
`roles.py` decides what each warp-width constant is used for; `base.py` holds the shared state.
"""

from __future__ import annotations

from .base import DEVICE_TRIGGERS, SYNC_CALLS, Hit, Result
from .device import DeviceRules
from .filelevel import FileRules
from .host import HostRules
from .lex import ID
from .roles import RoleRules

__all__ = ["Analyzer", "Hit", "Result"]


class Analyzer(DeviceRules, HostRules, FileRules, RoleRules):
    def run(self) -> Result:
        self.collect_constants()
        self.collect_lane_helpers()
        self.classify_functions()
        self.ballot_params()
        self.host_variables()
        self.macro_ids()
        self.device_triggers = (DEVICE_TRIGGERS | self.w32_consts.keys() | self.mask_consts.keys()
                                | self.macro_keys)
        for f in self.funcs:
            if f.device:
                self.virtual_fn = f.index in self.virtual_fns
                self.device_function(f)
                self.virtual_fn = False
            else:
                self.host_function(f)
        self.sync_masks()
        self.header_constant_roles()
        self.constant_roles()  # after the functions: it reads what each function learnt (fn_state)
        self.directives()
        self.file_level()
        if self.rocm < (7, 0):
            names = {x for x, k in zip(self.tt, self.kd, strict=True) if k == ID}
            if names & (SYNC_CALLS - {"__syncwarp"}) or "__activemask" in names:
                self.needs.sync_shim = True
            if "__syncwarp" in names:
                self.needs.syncwarp_shim = True
        return Result(self.st, self.en, self.funcs, self.hits, self.needs, self.links, self.prelude_offset())
