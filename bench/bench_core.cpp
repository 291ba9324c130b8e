// Placeholder: the core benchmark harness is being written.
int main() { return 0; }
