#include <math.h>
#include "stats.h"

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		for (int step = 0; step < 2; step++) {
			d = 1 + num * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
			if (step == 1 && fabs(d * c - 1) < 1e-14)
				return h;
		}
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double td_student_t_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

double td_welch_p(double mean_a, double se_a, int n_a, double mean_b, double se_b, int n_b, double *df_out)
{
	*df_out = NAN;
	if (isnan(se_a) || isnan(se_b) || n_a < 2 || n_b < 2)
		return NAN;
	double va = se_a * se_a, vb = se_b * se_b;
	if (va + vb == 0)
		return mean_a == mean_b ? 1 : 0;
	double t = (mean_b - mean_a) / sqrt(va + vb);
	double df = (va + vb) * (va + vb) / (va * va / (n_a - 1) + vb * vb / (n_b - 1));
	*df_out = df;
	return td_student_t_p(t, df);
}

void td_mean_se(const double *v, int n, double *mean, double *se)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / n : NAN;
	if (n < 2) {
		*se = NAN;
		return;
	}
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*se = sqrt(ss / (n - 1)) / sqrt((double)n);
}
