; __copier_amemcpy declared with another signature (and __copier_csync too): one warning
; naming the first symbol and the declaration libcopier has, and every copy
; stays synchronous with the same missed remark, even one the cost model
; would have kept synchronous anyway (@f: read right after the copy).
declare float @__copier_amemcpy(i32)
declare i32 @__copier_csync(double)

define void @f(ptr %d, ptr %s) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 100000, i1 false)
  %v = load i8, ptr %d
  ret void
}

define void @g(ptr %d, ptr %s, i64 %n) {
entry:
  br label %l
l:
  %i = phi i64 [0, %entry], [%i2, %l]
  %dp = getelementptr i8, ptr %d, i64 %i
  call void @llvm.memcpy.p0.p0.i64(ptr %dp, ptr %s, i64 65536, i1 false)
  %i2 = add i64 %i, 65536
  %c = icmp ult i64 %i2, %n
  br i1 %c, label %l, label %e
e:
  ret void
}

define void @h(ptr %d, ptr %s) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 65536, i1 false)
  unreachable
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
