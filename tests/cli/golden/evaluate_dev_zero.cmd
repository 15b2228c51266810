args: evaluate /dev/zero
exit: 2
stderr: "/dev/zero" is a device
stdout: ignore
