args: evaluate --calibration /dev/zero
exit: 2
stderr: --calibration: "/dev/zero" is a device
stdout: ignore
memory_mb: 1024
seconds: 30
