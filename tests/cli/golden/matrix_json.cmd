args: matrix --json
exit: 0
