// Test main for every test binary: libsystemc.so defines main() and calls sc_main, so Catch
// runs inside sc_main (SystemC's exception handling behaves as in production).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
