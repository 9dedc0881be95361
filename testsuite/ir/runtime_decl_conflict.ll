; The module declares libcopier's reserved __copier_csync with an unexpected
; type: CopierGen cannot call libcopier's csync, so the copies stay
; synchronous (warning + missed remark). (A public `csync` of another type
; would be the program's own, no conflict.)
define void @f(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %x = call i32 @__copier_csync(i32 1)
  ret void
}

declare i32 @__copier_csync(i32)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
