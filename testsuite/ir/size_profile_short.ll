; Memop size value profiles (-fprofile-use), written by hand as
; pgo-instr-use attaches them: !{!"VP", i32 1 (IPVK_MemOPSize), total,
; bucket, count, ...}. At the default threshold (16 KiB):
; @short: all 2000 calls in buckets of at most 255 bytes: stays memcpy
; (missed remark ProfiledBelowThreshold, naming the profile).
; @mostly_short: 1960 of 2000 listed below (95% decides): stays memcpy.
; @unknown_share: 900 of 1000 listed: too few decide, rewritten with the
; run-time size split. @large_bucket: "513 bytes or more" cannot prove a
; length of 16 KiB: rewritten with the split. @other_kind: an indirect-call
; profile (kind 0) is no size profile: rewritten with the split.
define void @short(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !0
  ret void
}

define void @mostly_short(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !1
  ret void
}

define void @unknown_share(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !2
  ret void
}

define void @large_bucket(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !3
  ret void
}

define void @other_kind(ptr %d, ptr %s, i64 %n) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false), !prof !4
  ret void
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

!0 = !{!"VP", i32 1, i64 2000, i64 129, i64 1000, i64 65, i64 600, i64 8, i64 400}
!1 = !{!"VP", i32 1, i64 2000, i64 129, i64 870, i64 65, i64 630, i64 33, i64 310, i64 17, i64 150}
!2 = !{!"VP", i32 1, i64 1000, i64 129, i64 900}
!3 = !{!"VP", i32 1, i64 200, i64 513, i64 200}
!4 = !{!"VP", i32 0, i64 200, i64 1234, i64 200}
