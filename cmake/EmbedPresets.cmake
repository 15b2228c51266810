# SPDX-License-Identifier: Apache-2.0
# Embeds every JSON file under presets/ into a generated C++ source so that the Qt-free CLI and
# the GUI carry the presets inside the binary. Call from the directory of the target that compiles
# the output (custom-command outputs attach to targets of their own directory).
function(parallax_embed_presets out_var)
  set(preset_dir "${CMAKE_SOURCE_DIR}/presets")
  file(GLOB_RECURSE preset_files CONFIGURE_DEPENDS "${preset_dir}/*.json")
  set(output "${CMAKE_BINARY_DIR}/generated/EmbeddedPresets.cpp")
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -DPRESET_DIR=${preset_dir} -DOUTPUT=${output}
            -P "${CMAKE_SOURCE_DIR}/cmake/GenerateEmbeddedPresets.cmake"
    DEPENDS ${preset_files} "${CMAKE_SOURCE_DIR}/cmake/GenerateEmbeddedPresets.cmake"
    COMMENT "Embedding presets")
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()
