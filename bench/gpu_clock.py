"""The GPU's SM clock and board power while a benchmark runs, so that a
table can say at what clock each implementation was timed: a board near
its power limit (an H100 or H200 SXM at 700 W) clocks down, and a kernel
that draws more power runs at a lower clock, so its time says something
about its energy as well as its instructions (bench/NOTES.md item 102).

  with ClockSampler(nvidia_smi_id(torch.cuda.current_device())) as clocks:
      start = time.time(); ...timed work...; end = time.time()
      clocks.summary([(start, end)])  # {"mhz", "watts", "power_flag", "samples"}

nvidia-smi samples every `period_ms` in a child process; each line carries
nvidia-smi's own timestamp (local time, as datetime reads it), so late
reads do not shift it. Where there is no nvidia-smi (a CPU run) the sampler
is empty and summary() gives None; where nvidia-smi ran but gave no
samples, `failure` says why.
"""
import datetime
import shutil
import subprocess
import threading

FIELDS = "timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
# clocks_event_reasons bits (nvidia-smi -q -d PERFORMANCE) that name power:
# the software power cap (0x4) and the hardware power brake (0x80). The
# flag is set whenever the limit trims the clock, by a little or a lot:
# read it beside the clock, not as "slowed down".
POWER_REASONS = 0x4 | 0x80


def _parse(line):
    """(epoch seconds, MHz, W, reasons) of one CSV line, or None."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 4:
        return None
    try:
        when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
        return when, float(parts[1]), float(parts[2]), int(parts[3], 16)
    except ValueError:  # "[N/A]", a header
        return None


def nvidia_smi_id(cuda_index):
    """nvidia-smi's name for torch's CUDA device `cuda_index`: its UUID
    (CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER renumber CUDA's devices,
    not nvidia-smi's), or the index where torch does not give one."""
    import torch
    uuid = getattr(torch.cuda.get_device_properties(cuda_index), "uuid", None)
    return f"GPU-{uuid}" if uuid else str(cuda_index)


class ClockSampler:
    def __init__(self, device="0", period_ms=100):
        self.samples = []
        self.failure = None
        self._process = None
        self._reader = None
        self._command = ["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits",
                         f"--loop-ms={period_ms}", f"--id={device}"]

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self._process = subprocess.Popen(self._command, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, text=True)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
        return self

    def _read(self):
        for line in self._process.stdout:
            sample = _parse(line)
            if sample:
                self.samples.append(sample)

    def __exit__(self, *exc):
        if self._process:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._reader.join(timeout=2)
            errors = self._process.stderr.read()
            self._process.stdout.close()
            self._process.stderr.close()
            if not self.samples:
                self.failure = (f"nvidia-smi gave no samples (exit {self._process.returncode}): "
                                f"{errors.strip()[:300]}")
        return False

    def summary(self, intervals):
        """Mean SM clock (MHz), mean power (W) and the share of samples with
        a power reason flagged, over the samples inside any of `intervals`
        ((start, end) in epoch seconds); None without samples there."""
        inside = [s for s in list(self.samples)
                  if any(start <= s[0] <= end for start, end in intervals)]
        if not inside:
            return None
        n = len(inside)
        return {"mhz": sum(s[1] for s in inside) / n, "watts": sum(s[2] for s in inside) / n,
                "power_flag": sum(1 for s in inside if s[3] & POWER_REASONS) / n, "samples": n}
