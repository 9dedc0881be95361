; Copies between pointers outside address space 0 stay synchronous
; (libcopier takes address-space-0 pointers); an address-space-0 copy is
; rewritten, and an access through another address space syncs the whole
; copy (no narrow csync on a non-0 pointer).
define void @as1(ptr addrspace(1) %d, ptr addrspace(1) %s, i64 %n) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %d, ptr addrspace(1) %s, i64 %n, i1 false)
  ret void
}

define i8 @as0_then_as1_access(ptr %d, ptr %s, i64 %n, ptr addrspace(1) %q) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %v = load i8, ptr addrspace(1) %q
  ret i8 %v
}

declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
