/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The softhca device model as the driver sees it from the "bus": what a PCI
 * core would give a driver for a real card. A card has a struct device to
 * DMA with, a BAR (the register page and the UAR pages), MMIO accessors and
 * interrupt vectors. Everything else goes through the registers, the
 * command queue and queues in host memory (include/softhca_prm.h).
 */
#ifndef SOFTHCA_HW_H
#define SOFTHCA_HW_H

#include <linux/types.h>
#include <linux/if_ether.h>

struct device;
struct net_device;
struct page;
struct softhca_hw;

/* Hot-plug a card whose Ethernet port has MAC address @mac. */
struct softhca_hw *softhca_hw_plug(const u8 mac[ETH_ALEN]);
/* Remove it; the driver has freed its IRQs and stopped using it. */
void softhca_hw_unplug(struct softhca_hw *hw);

/*
 * Wire the card's Ethernet port to @ndev: packets for other hosts leave
 * through it and RoCEv2 packets for the card's addresses arriving on it
 * are the card's. -EBUSY: @ndev has a receive handler already (a bridge
 * or bond port). Unwire with @rtnl_held saying whether the caller holds
 * RTNL (a netdev notifier does).
 */
int softhca_hw_attach_netdev(struct softhca_hw *hw, struct net_device *ndev);
void softhca_hw_detach_netdev(struct softhca_hw *hw, bool rtnl_held);

/* The card's bus device: DMA mappings are made against it. */
struct device *softhca_hw_device(struct softhca_hw *hw);

/* MMIO to the register page (SOFTHCA_REG_*). */
u32 softhca_hw_read32(struct softhca_hw *hw, u32 offset);
void softhca_hw_write32(struct softhca_hw *hw, u32 offset, u32 value);

/* Number of interrupt vectors and the Linux IRQ of one (pci_irq_vector). */
unsigned int softhca_hw_num_vectors(struct softhca_hw *hw);
int softhca_hw_irq_vector(struct softhca_hw *hw, unsigned int vector);

/* The BAR page backing UAR @index, for mapping into a process. */
struct page *softhca_hw_uar_page(struct softhca_hw *hw, u32 index);

#endif /* SOFTHCA_HW_H */
