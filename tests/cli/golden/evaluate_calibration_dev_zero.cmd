args: evaluate --calibration /dev/zero
exit: 2
stderr: --calibration: "/dev/zero" is a device
stdout: ignore
