/* Small statistics for A/B decisions: Welch's t-test and the Student t
 * distribution it needs. */
#ifndef TD_STATS_H
#define TD_STATS_H

/* Two-sided p-value of Student's t with df degrees of freedom (df may be
 * fractional, as Welch's is). */
double td_student_t_p(double t, double df);

/* Welch's unequal-variances test from each side's mean, standard error of
 * the mean and sample count. Returns the two-sided p-value (NaN when a
 * side has no variance information); *df_out gets the degrees of freedom. */
double td_welch_p(double mean_a, double se_a, int n_a, double mean_b, double se_b, int n_b, double *df_out);

/* Mean and standard error of the mean of n values (se NaN when n < 2). */
void td_mean_se(const double *v, int n, double *mean, double *se);

#endif
