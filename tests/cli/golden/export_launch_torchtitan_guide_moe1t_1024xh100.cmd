args: export presets/scenarios/guide-moe1t-1024xh100.parallax.json --launch torchtitan -
exit: 0
