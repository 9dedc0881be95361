; __copier_amemcpy is a variable of the program, not a function: one warning, the
; copies stay synchronous. A pending word of another type warns the same way
; (the first conflict found is named).
@__copier_amemcpy = global i32 0
@__copier_pending = global i8 0

define void @f(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  call void @work(ptr %s)
  %v = load i8, ptr %d
  ret void
}

declare void @work(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
