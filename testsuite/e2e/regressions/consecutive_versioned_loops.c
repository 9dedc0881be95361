// Two copies then two loops, the second entered from the first one's latch:
// CopierGen once emitted IR the verifier rejects here (a versioned loop's
// bound defined in only one copy of the previous loop), on which
// `copiergen cc --sanitize -O2` crashed clang. The program and its story:
#include "../../ir/consecutive_versioned_loops.c"
