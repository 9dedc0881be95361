/* A shared library whose constructor calls into the executable before the
 * executable's own constructors run (as C++ static initializers of
 * libprotobuf call inline functions the executable also instantiated). The
 * executable's function is instrumented: its inline shadow check must find
 * the shadow already mapped. Built by run.sh both plain (clang-22) and with
 * `copiergen cc --sanitize -shared`. */
int exe_callback(const int *p);
static int seen;
__attribute__((constructor)) static void lib_init(void) {
  int x = 41;
  seen = exe_callback(&x);
}
int lib_seen(void) { return seen; }
