/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Trace points of IPoIB connected mode: the keepalive decisions of its
 * connections.
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_ipoib

#if !defined(_TRACE_IB_IPOIB_H) || defined(TRACE_HEADER_MULTI_READ)

#define _TRACE_IB_IPOIB_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

TRACE_DEFINE_ENUM(IB_QPT_RC);
TRACE_DEFINE_ENUM(IB_QPT_UC);

#define show_ipoib_qp_type(t)						\
	__print_symbolic(t, { IB_QPT_RC, "RC" }, { IB_QPT_UC, "UC" })

DECLARE_EVENT_CLASS(ipoib_cm_ka_class,
		    TP_PROTO(const struct net_device *dev, const struct ib_qp *qp),
		    TP_ARGS(dev, qp),
		    TP_STRUCT__entry(__string(dev, dev->name)
				     __field(u32, qpn)
				     __field(unsigned int, qp_type)),
		    TP_fast_assign(__assign_str(dev);
				   __entry->qpn = qp->qp_num;
				   __entry->qp_type = qp->qp_type;),
		    TP_printk("%s qpn=0x%x %s", __get_str(dev), __entry->qpn,
			      show_ipoib_qp_type(__entry->qp_type))
);

#define DEFINE_IPOIB_CM_KA_EVENT(name)					\
	DEFINE_EVENT(ipoib_cm_ka_class, ipoib_cm_ka_##name,		\
		     TP_PROTO(const struct net_device *dev,		\
			      const struct ib_qp *qp),			\
		     TP_ARGS(dev, qp))

/* a send-side connection posted a probe */
DEFINE_IPOIB_CM_KA_EVENT(probe);
/* a probe of a send-side connection was answered (RC: acknowledged) */
DEFINE_IPOIB_CM_KA_EVENT(answered);
/* a receive-side connection received a probe */
DEFINE_IPOIB_CM_KA_EVENT(probe_received);
/* the peer of a send-side connection was declared dead */
DEFINE_IPOIB_CM_KA_EVENT(tx_dead);
/* the sender of a receive-side connection fell silent */
DEFINE_IPOIB_CM_KA_EVENT(rx_dead);

/*
 * the RDMA WRITE tried on a new RC connection to a peer without the
 * keepalive capability completed: status 0, the peer may be probed
 */
TRACE_EVENT(ipoib_cm_ka_write_checked,
	    TP_PROTO(const struct net_device *dev, const struct ib_qp *qp,
		     enum ib_wc_status status),
	    TP_ARGS(dev, qp, status),
	    TP_STRUCT__entry(__string(dev, dev->name)
			     __field(u32, qpn)
			     __field(int, status)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->qpn = qp->qp_num;
			   __entry->status = status;),
	    TP_printk("%s qpn=0x%x status=%d", __get_str(dev), __entry->qpn,
		      __entry->status)
);

#endif /* _TRACE_IB_IPOIB_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE ipoib_trace

#include <trace/define_trace.h>
