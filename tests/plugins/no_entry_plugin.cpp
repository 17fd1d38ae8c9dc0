// A shared library that is not an mnrl plugin: it exports no mnrl_env_plugin_entry.
extern "C" __attribute__((visibility("default"))) int some_other_library_function() { return 7; }
