; Which functions count as signal handlers (their copies stay llvm.memcpy,
; missed remark SignalHandler): the address reaches signal/sigaction/...
;  - @h_static: in the initializer of a static struct sigaction passed to
;    sigaction;
;  - @h_wrapper: passed to @my_signal, a wrapper of this module that calls
;    signal;
;  - @h_elsewhere: passed to an external function by a function that calls
;    sigaction itself (the callee may be a wrapper in another module);
;  - @h_global: stored in a global by a function that installs nothing,
;    loaded from it and passed to sigset elsewhere;
;  - @h_returned: returned by @pick, whose result goes to bsd_signal;
;  - @h_sel_a, @h_sel_b: either of them (select) goes to __sysv_signal;
;  - @h_phi: through a phi into a struct stored in an installer;
;  - @deep: called (two levels) from @h_wrapper.
; Rewritten (not handlers): @worker, handed to pthread_create by a function
; that also installs a handler, and @callback, handed to an external
; function by a function that installs nothing.
; RUN: no

@g_dst = global [65536 x i8] zeroinitializer
@g_src = global [65536 x i8] zeroinitializer
@g_len = global i64 65536
@cb = global ptr null
@sa_static = internal global { ptr, [16 x i64], i32, ptr } { ptr @h_static, [16 x i64] zeroinitializer, i32 0, ptr null }

define void @h_static(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_wrapper(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  call void @middle()
  ret void
}

define internal void @middle() {
  call void @deep()
  ret void
}

define internal void @deep() {
  %n = load i64, ptr @g_len
  call void @llvm.memmove.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_elsewhere(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_global(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_returned(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_sel_a(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_sel_b(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define void @h_phi(i32 %sig) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define ptr @worker(ptr %arg) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret ptr null
}

define void @callback(ptr %arg) {
  %n = load i64, ptr @g_len
  call void @llvm.memcpy.p0.p0.i64(ptr @g_dst, ptr @g_src, i64 %n, i1 false)
  ret void
}

define internal void @my_signal(i32 %sig, ptr %fn) {
  %old = call ptr @signal(i32 %sig, ptr %fn)
  ret void
}

define void @install_static() {
  %r = call i32 @sigaction(i32 14, ptr @sa_static, ptr null)
  ret void
}

define void @install_wrapper() {
  call void @my_signal(i32 2, ptr @h_wrapper)
  ret void
}

define void @install_elsewhere(ptr %t) {
  %sa = alloca { ptr, [16 x i64], i32, ptr }
  %r = call i32 @sigaction(i32 15, ptr %sa, ptr null)
  call void @register_handler(i32 10, ptr @h_elsewhere)
  %c = call i32 @pthread_create(ptr %t, ptr null, ptr @worker, ptr null)
  ret void
}

define void @set_cb() {
  store ptr @h_global, ptr @cb
  call void @register_callback(ptr @callback)
  ret void
}

define void @arm() {
  %fn = load ptr, ptr @cb
  %old = call ptr @sigset(i32 3, ptr %fn)
  ret void
}

define internal ptr @pick() {
  ret ptr @h_returned
}

define void @arm_returned() {
  %fn = call ptr @pick()
  %old = call ptr @bsd_signal(i32 4, ptr %fn)
  ret void
}

define void @arm_select(i1 %c) {
  %fn = select i1 %c, ptr @h_sel_a, ptr @h_sel_b
  %old = call ptr @__sysv_signal(i32 5, ptr %fn)
  ret void
}

define void @arm_phi(i1 %c) {
entry:
  %sa = alloca { ptr, [16 x i64], i32, ptr }
  br i1 %c, label %yes, label %join
yes:
  br label %join
join:
  %fn = phi ptr [ @h_phi, %yes ], [ null, %entry ]
  store ptr %fn, ptr %sa
  %r = call i32 @__sigaction(i32 6, ptr %sa, ptr null)
  ret void
}

declare ptr @signal(i32, ptr)
declare ptr @sigset(i32, ptr)
declare ptr @bsd_signal(i32, ptr)
declare ptr @__sysv_signal(i32, ptr)
declare i32 @sigaction(i32, ptr, ptr)
declare i32 @__sigaction(i32, ptr, ptr)
declare void @register_handler(i32, ptr)
declare void @register_callback(ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
