// Compiled to an object file only: a plugin path that points at a .o must be refused.
int mnrl_test_object_file_function() { return 1; }
