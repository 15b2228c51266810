# Issue 16: a number beyond double range in a calibration file aborted the GUI
args: evaluate --calibration tests/fuzz/corpus/calibration/regression-1e400.json
exit: 2
stderr: version: a number is outside the range of a double
stdout: ignore
memory_mb: 1024
seconds: 30
