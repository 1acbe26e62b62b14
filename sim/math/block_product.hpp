// Products of the leading parts of 6 x 6 blocks, the graph LDU's kernels (sim/solver/ldu.cpp):
//
//   C(0:M,0:N) −= A(0:M,0:K) B(0:K,0:N)      subtract_product<M, K, N>(A, B, C)
//   C(0:M,0:N)  = A(0:M,0:M) C(0:M,0:N)      multiply_in_place<M, N>(A, C)
//   y(0:M)     −= A(0:M,0:K) x(0:K)          subtract_product<M, K>(A, x, y)
//   y(0:M)      = A(0:M,0:M) x(0:M)          assign_product<M>(A, x, y)
//
// A, B and C are 6 x 6 blocks (column-major), x and y a node's part of a vector. Each entry is
// computed as Eigen's fixed-size lazy product computes it where the target has FMA (rows in packets
// of 4 and 2): s = a₀ b₀, then s = fma(a_k, b_k, s) for k = 1 … K−1, then c − s (or s). The
// kernels below spell that order out with AVX2 and FMA instructions and keep A's columns in
// registers across C's columns, which Eigen's generic evaluator does not: the same bits in about
// a third of the time for 6 × 6 × 6. Without AVX2 and FMA, and for one-row products (which Eigen
// evaluates as a reduction), they are Eigen's expressions themselves.
#pragma once

#include <Eigen/Core>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define MAXSIM_BLOCK_PRODUCT_AVX2 1
#endif

namespace maxsim::block_product {

constexpr int kLead = 6;  // leading dimension of every operand

#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
// C(0:M,0:N) (−)= A(0:M,0:K) B(0:K,0:N) for M = 4 or 6 (rows 0–3 in a 4-packet, 4–5 in a 2-packet).
// C may be B (column j of C is written after column j of B is read); A must not be C.
template <int M, int K, int N, bool Subtract>
inline void product_avx2(const double* a, const double* b, double* c) {
  static_assert(M == 4 || M == 6, "rows in packets of 4 and 2");
  __m256d lo[K];
  [[maybe_unused]] __m128d hi[K];
  for (int k = 0; k < K; ++k) {
    lo[k] = _mm256_loadu_pd(a + kLead * k);
    if constexpr (M == 6) hi[k] = _mm_loadu_pd(a + kLead * k + 4);
  }
  for (int j = 0; j < N; ++j) {
    const double* bj = b + kLead * j;
    double* cj = c + kLead * j;
    __m256d f = _mm256_broadcast_sd(bj);
    __m256d s_lo = _mm256_mul_pd(lo[0], f);
    [[maybe_unused]] __m128d s_hi;
    if constexpr (M == 6) s_hi = _mm_mul_pd(hi[0], _mm256_castpd256_pd128(f));
    for (int k = 1; k < K; ++k) {
      f = _mm256_broadcast_sd(bj + k);
      s_lo = _mm256_fmadd_pd(lo[k], f, s_lo);
      if constexpr (M == 6) s_hi = _mm_fmadd_pd(hi[k], _mm256_castpd256_pd128(f), s_hi);
    }
    if constexpr (Subtract) {
      _mm256_storeu_pd(cj, _mm256_sub_pd(_mm256_loadu_pd(cj), s_lo));
      if constexpr (M == 6) _mm_storeu_pd(cj + 4, _mm_sub_pd(_mm_loadu_pd(cj + 4), s_hi));
    } else {
      _mm256_storeu_pd(cj, s_lo);
      if constexpr (M == 6) _mm_storeu_pd(cj + 4, s_hi);
    }
  }
}
#endif

using Block6 = Eigen::Matrix<double, kLead, kLead>;  // (sim/solver/ldu.hpp's Block)

// C(0:M,0:N) −= A(0:M,0:K) B(0:K,0:N); C must not be A or B.
template <int M, int K, int N>
inline void subtract_product(const Block6& a, const Block6& b, Block6& c) {
#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
  if constexpr (M == 4 || M == 6) {
    product_avx2<M, K, N, true>(a.data(), b.data(), c.data());
    return;
  }
#endif
  c.topLeftCorner<M, N>().noalias() -= a.topLeftCorner<M, K>() * b.topLeftCorner<K, N>();
}

// C(0:M,0:N) = A(0:M,0:M) C(0:M,0:N), in place; A must not be C.
template <int M, int N>
inline void multiply_in_place(const Block6& a, Block6& c) {
#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
  if constexpr (M == 4 || M == 6) {
    product_avx2<M, M, N, false>(a.data(), c.data(), c.data());
    return;
  }
#endif
  const Eigen::Matrix<double, M, N> tmp = c.topLeftCorner<M, N>();
  c.topLeftCorner<M, N>().noalias() = a.topLeftCorner<M, M>() * tmp;
}

// y(0:M) −= A(0:M,0:K) x(0:K); y must not overlap A or x.
template <int M, int K>
inline void subtract_product(const Block6& a, const double* x, double* y) {
#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
  if constexpr (M == 4 || M == 6) {
    product_avx2<M, K, 1, true>(a.data(), x, y);
    return;
  }
#endif
  Eigen::Map<Eigen::Matrix<double, M, 1>>(y).noalias() -=
      a.topLeftCorner<M, K>() * Eigen::Map<const Eigen::Matrix<double, K, 1>>(x);
}

// y(0:M) = A(0:M,0:M) x(0:M); y must not overlap A or x.
template <int M>
inline void assign_product(const Block6& a, const double* x, double* y) {
#ifdef MAXSIM_BLOCK_PRODUCT_AVX2
  if constexpr (M == 4 || M == 6) {
    product_avx2<M, M, 1, false>(a.data(), x, y);
    return;
  }
#endif
  Eigen::Map<Eigen::Matrix<double, M, 1>>(y).noalias() =
      a.topLeftCorner<M, M>() * Eigen::Map<const Eigen::Matrix<double, M, 1>>(x);
}

}  // namespace maxsim::block_product
