args: presets
exit: 0
