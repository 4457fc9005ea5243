/* ug470.h - 7-series configuration packet words (UG470; shared/xc7/FACTS.md "Bitstream format"). */
#ifndef SCG_UG470_H
#define SCG_UG470_H
#include <stdint.h>

#define UG470_DUMMY 0xFFFFFFFFu
#define UG470_SYNC 0xAA995566u
#define UG470_NOOP 0x20000000u
/* type-1 write / read of n words to / from register reg, type-2 write / read of n words */
#define UG470_T1W(reg, n) ((1u << 29) | (2u << 27) | ((uint32_t)(reg) << 13) | (n))
#define UG470_T1R(reg, n) ((1u << 29) | (1u << 27) | ((uint32_t)(reg) << 13) | (n))
#define UG470_T2W(n) ((2u << 29) | (2u << 27) | (n))
#define UG470_T2R(n) ((2u << 29) | (1u << 27) | (n))
/* registers */
#define UG470_FAR 1u
#define UG470_FDRI 2u
#define UG470_FDRO 3u
#define UG470_CMD 4u
#define UG470_IDCODE 12u
/* CMD codes */
#define UG470_WCFG 1u
#define UG470_RCFG 4u
#define UG470_RCRC 7u
#define UG470_DESYNC 13u
/* where a frame write leaves the FAR (the vendor driver's) */
#define UG470_PARK_FAR 0x03BE0000u

#endif
