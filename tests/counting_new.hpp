// Heap allocations counted for the "no allocation in a step" tests: every form of the global
// operator new and delete (single and array; plain, nothrow, aligned, sized) is replaced by
// malloc / aligned_alloc and free, and new counts into g_allocations while g_count_allocations is
// set. Include this header in one source file of a test program only (it defines the operators).
//
// Every form, not only the plain one: the standard library calls the others too (std::stable_sort
// in BlockLdu::analyze takes its buffer from the nothrow new), and a form left to the runtime
// allocates with the runtime's allocator while the replaced delete calls free: AddressSanitizer
// stops the program on that mismatch ("alloc-dealloc-mismatch (operator new vs free)").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

inline std::atomic<bool> g_count_allocations{false};
inline std::atomic<long> g_allocations{0};

namespace counting_new {
inline void* allocate(std::size_t n) {
  if (g_count_allocations) ++g_allocations;
  return std::malloc(n ? n : 1);
}
inline void* allocate(std::size_t n, std::align_val_t align) {
  if (g_count_allocations) ++g_allocations;
  const std::size_t a = static_cast<std::size_t>(align);
  return std::aligned_alloc(a, n ? (n + a - 1) / a * a : a);  // a size that is a multiple of a
}
inline void* allocate_or_throw(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
inline void* allocate_or_throw(std::size_t n, std::align_val_t align) {
  if (void* p = allocate(n, align)) return p;
  throw std::bad_alloc();
}
}  // namespace counting_new

// GCC flags malloc/free inside replaced operators as mismatched; they are matched here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) { return counting_new::allocate_or_throw(n); }
void* operator new[](std::size_t n) { return counting_new::allocate_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counting_new::allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counting_new::allocate(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counting_new::allocate_or_throw(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return counting_new::allocate_or_throw(n, a); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counting_new::allocate(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counting_new::allocate(n, a);
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
