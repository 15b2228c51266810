# Issue 16: deep nesting in a calibration file overflowed the stack
args: evaluate --calibration tests/fuzz/corpus/calibration/regression-deep.json
exit: 2
stderr: regression-deep.json: not accepted: nesting deeper than 64 levels
stdout: ignore
memory_mb: 1024
seconds: 30
