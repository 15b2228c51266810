args: export presets/scenarios/llama3-70b-64xh100.parallax.json --memory /nonexistent-parallax-folder/memory.png
exit: 2
stderr: cannot write "/nonexistent-parallax-folder/memory.png": the folder "/nonexistent-parallax-folder" does not exist
stdout: ignore
