args: evaluate /dev/zero
exit: 2
stderr: "/dev/zero" is a device
stdout: ignore
memory_mb: 1024
seconds: 30
