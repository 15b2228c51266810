args: schedule --pp 4
exit: 2
stderr: give a scenario FILE
stdout: ignore
