args: validate --serving
exit: 0
