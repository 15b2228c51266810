args: export presets/scenarios/llama3-70b-64xh100.parallax.json --gantt build-render-nowhere/gantt.bmp
exit: 2
stderr: unknown format ".bmp"
stdout: ignore
