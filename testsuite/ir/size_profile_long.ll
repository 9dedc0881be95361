; OPTFLAGS: -copiergen-min-overlap=0 -copiergen-threshold=512
; Memop size value profiles at a threshold of 512 bytes, which the last
; bucket ("513 bytes or more") reaches. @long: all 200 calls at 513 or
; more: rewritten without the run-time size split (passed remark
; ProfiledLong), only the site's inline-path check stays. @mostly_long:
; 96 of 100: the same. @mixed: 90 of 100 (below 95%): rewritten with the
; split. @short: all at most 255 bytes: stays memcpy.
define void @long(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !0
  ret void
}

define void @mostly_long(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !1
  ret void
}

define void @mixed(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !2
  ret void
}

define void @short(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !3
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

!0 = !{!"VP", i32 1, i64 200, i64 513, i64 200}
!1 = !{!"VP", i32 1, i64 100, i64 513, i64 96, i64 8, i64 4}
!2 = !{!"VP", i32 1, i64 100, i64 513, i64 90, i64 8, i64 10}
!3 = !{!"VP", i32 1, i64 200, i64 129, i64 200}
