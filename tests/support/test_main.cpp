// Test main for every test binary: Catch runs inside sc_main (entered through
// sc_elab_and_sim, so SystemC's exception handling behaves as in production). Our main()
// replaces libsystemc's to hide the copyright banner, also during test discovery.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <systemc>

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

int main(int argc, char* argv[]) {
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
