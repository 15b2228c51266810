args: evaluate
exit: 0
