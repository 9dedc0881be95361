; A program's own functions named like libcopier's public API (`csync`,
; `copier_flush`) are ordinary functions: their copies are rewritten, and
; the pass's waits call the reserved __copier_csync, never the program's
; csync. A call of a declared public `csync_all` (maybe the program's own,
; from another file) is an ordinary call: the copy it may read is synced
; before it.
define void @csync(ptr %p, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr @buf, ptr %p, i64 %n, i1 false)
  call void @work()
  %v = load i8, ptr @buf
  store i8 %v, ptr %p
  ret void
}

define void @copier_flush(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @work()
  call void @csync_all()
  ret void
}

@buf = global [65536 x i8] zeroinitializer

declare void @work() nounwind willreturn memory(none)
declare void @csync_all()
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
