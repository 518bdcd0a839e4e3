/* report_probe.h - the probe figure, from ./probe's Markdown output. */
#ifndef STUDY_REPORT_PROBE_H
#define STUDY_REPORT_PROBE_H

/* probe_softmax.svg in dir: entropy and Jacobian norm vs dk per divisor, from the tables of
 * ./probe's output (sections 5 and 6). Returns the number of plots written (1). */
int report_probe_plot(const char *probe_md, const char *dir);

#endif
