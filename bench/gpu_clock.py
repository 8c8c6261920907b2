"""The GPU's SM clock and board power while a benchmark runs, so that a
table can say at what clock each implementation was timed: on a
power-capped chip (an H100 or H200 SXM at 700 W) a kernel that draws more
power per second runs at a lower clock, and its time says as much about
its energy as about its instructions (bench/NOTES.md item 102).

  with ClockSampler(device_index) as clocks:
      start = time.time(); ...timed work...; end = time.time()
      clocks.summary([(start, end)])  # {"mhz": .., "watts": .., "capped": ..}

nvidia-smi samples every `period_ms` in a child process; each line carries
nvidia-smi's own timestamp, so late reads do not shift it. Where there is
no nvidia-smi (a CPU run) the sampler is empty and summary() gives None.
"""
import datetime
import shutil
import subprocess
import threading

FIELDS = "timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
# clocks_event_reasons bits (nvidia-smi -q -d PERFORMANCE): the software
# power cap, hardware slowdown and the hardware power brake.
POWER_REASONS = 0x4 | 0x8 | 0x80


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


class ClockSampler:
    def __init__(self, device_index=0, period_ms=100):
        self.samples = []
        self._process = None
        self._reader = None
        self._command = ["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits",
                         f"--loop-ms={period_ms}", f"--id={device_index}"]

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self._process = subprocess.Popen(self._command, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, text=True)
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
            self._process.wait()
            self._reader.join(timeout=2)
        return False

    def summary(self, intervals):
        """Mean SM clock (MHz), mean power (W) and the fraction of samples
        clocked down for power, over the samples inside any of `intervals`
        ((start, end) in epoch seconds); None without samples there."""
        inside = [s for s in list(self.samples)
                  if any(start <= s[0] <= end for start, end in intervals)]
        if not inside:
            return None
        n = len(inside)
        return {"mhz": sum(s[1] for s in inside) / n, "watts": sum(s[2] for s in inside) / n,
                "capped": sum(1 for s in inside if s[3] & POWER_REASONS) / n, "samples": n}
