# Issue 16: the reader accepted buffer_bytes 1e72, which the writer could not write back
args: evaluate --calibration tests/fuzz/corpus/calibration/regression-buffer-1e72.json
exit: 2
stderr: hbm.buffer_bytes: must be a whole number of bytes from 1 to 2\^53, got 1e\+72
stdout: ignore
memory_mb: 1024
seconds: 30
