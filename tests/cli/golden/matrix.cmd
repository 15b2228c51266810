args: matrix
exit: 0
