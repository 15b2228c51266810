args: evaluate --json --schedule foo
exit: 1
stderr: schedule
