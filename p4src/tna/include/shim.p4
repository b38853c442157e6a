// shim.p4 -- the architecture shim: TNA/T2NA includes and the intrinsic
// metadata names the controls use, so the controls read the same on Tofino 1
// and Tofino 2. __TARGET_TOFINO__ (1 or 2) picks the include, as bf-p4c sets it.

#ifndef __FABRIC_TNA_SHIM__
#define __FABRIC_TNA_SHIM__

#include <core.p4>
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#endif  // __FABRIC_TNA_SHIM__
