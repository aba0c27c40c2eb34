"""The UI thread asks Linux for short scheduling slices, so that it gets a
core soon after it wakes while every core is busy.

With a model running on a 2-core machine whose cores are busy with other
work, most of each long event-loop pause was the UI thread ready to run
but waiting for a core (benchmarks/run_responsiveness.py --why: 30 ms on a
core, 130 ms waiting). Since Linux 6.12 the scheduler (EEVDF) reads a
thread's requested slice (sched_attr.sched_runtime, 0.1 to 100 ms; no
privilege needed, unlike a higher priority) as a latency hint: a thread
asking for short slices is picked sooner when it wakes, and is preempted
sooner; its share of the CPU stays the same. The UI thread wakes at every
turn of the event loop and whenever it gets the interpreter lock back from
a run's worker. Measured with --load 2, six rounds each way (2026-11-27,
load average 2-4, before the other changes of that day): longest pause of 50 chained steps 69-124 ms
against 93-235 ms, of later whole runs 30-51 ms against 45-184 ms. With
other sessions keeping the load average at 5-6 four more rounds each way
showed no clear difference: the pauses were then mostly the UI thread's
share of the cores (see benchmarks/run_responsiveness.py --load-apart).

Threads inherit the slice from the thread that starts them, a run's worker
too, as in those rounds: a worker holding the interpreter lock when it
loses its core then gets one back as soon, and the UI thread waiting for
the lock waits less.

Elsewhere (another system, an older kernel, a sandbox refusing the call)
nothing changes.
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys

SHORT_SLICE_NS = 100_000           # the shortest the kernel takes (0.1 ms)

# sched_setattr's number: x86-64; arm64 and riscv64 (the generic table).
_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274, "riscv64": 274}

_asked = False


def ask_short_slices() -> bool:
    """For the calling thread (the UI thread), once: short slices. Whether the kernel took the request."""
    global _asked
    if _asked:
        return False
    _asked = True
    return _set_slice(SHORT_SLICE_NS)


def _set_slice(runtime_ns: int) -> bool:
    number = _SCHED_SETATTR.get(os.uname().machine) if sys.platform.startswith("linux") else None
    if number is None:
        return False
    try:
        if os.sched_getscheduler(0) != os.SCHED_OTHER:     # a batch or idle thread stays so
            return False
        nice = os.getpriority(os.PRIO_PROCESS, 0)          # on Linux: the calling thread's
        # struct sched_attr as of Linux 3.14: size, policy, flags, nice,
        # priority, runtime, deadline, period.
        attr = ctypes.create_string_buffer(struct.pack("IIQiIQQQ", 48, os.SCHED_OTHER, 0, nice, 0,
                                                       runtime_ns, 0, 0))
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syscall(ctypes.c_long(number), ctypes.c_int(0), attr, ctypes.c_uint(0)) == 0
    except (OSError, AttributeError):
        return False
