/* The native limit for bench/hash.bench.ts: Kafka's murmur2 + toPositive % n in C,
 * built by the bench script with -O3 -march=native. Reads a key file written by the
 * bench (u32 count, u32 n, i32 offsets[count+1], bytes), hashes it `reps` times,
 * prints the median milliseconds and a checksum of the partitions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint32_t murmur2(const uint8_t *p, int32_t len) {
  const uint32_t m = 0x5bd1e995u;
  uint32_t h = 0x9747b28cu ^ (uint32_t)len;
  int32_t n4 = len & ~3;
  for (int32_t i = 0; i < n4; i += 4) {
    uint32_t k;
    memcpy(&k, p + i, 4); /* little-endian hosts only, like Kafka's byte order */
    k *= m; k ^= k >> 24; k *= m;
    h *= m; h ^= k;
  }
  const uint8_t *t = p + n4;
  switch (len & 3) {
    case 3: h ^= (uint32_t)t[2] << 16; /* fall through */
    case 2: h ^= (uint32_t)t[1] << 8;  /* fall through */
    case 1: h ^= t[0]; h *= m;
  }
  h ^= h >> 13; h *= m; h ^= h >> 15;
  return h;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s keyfile reps\n", argv[0]); return 2; }
  FILE *f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 2; }
  uint32_t count, n;
  if (fread(&count, 4, 1, f) != 1 || fread(&n, 4, 1, f) != 1) return 2;
  int32_t *off = malloc(4 * ((size_t)count + 1));
  if (fread(off, 4, (size_t)count + 1, f) != (size_t)count + 1) return 2;
  uint8_t *data = malloc((size_t)off[count] + 1);
  if (fread(data, 1, (size_t)off[count], f) != (size_t)off[count]) return 2;
  fclose(f);
  int reps = atoi(argv[2]);
  int32_t *out = malloc(4 * (size_t)count);
  double *ms = malloc(sizeof(double) * reps);
  for (int r = 0; r < reps; r++) {
    double t0 = now_ms();
    for (uint32_t i = 0; i < count; i++)
      out[i] = (int32_t)((murmur2(data + off[i], off[i + 1] - off[i]) & 0x7fffffffu) % n);
    ms[r] = now_ms() - t0;
  }
  uint32_t sum = 0;
  for (uint32_t i = 0; i < count; i++) sum = sum * 31u + (uint32_t)out[i];
  qsort(ms, reps, sizeof(double), cmp);
  printf("%.4f %u\n", ms[reps / 2], sum);
  return 0;
}
