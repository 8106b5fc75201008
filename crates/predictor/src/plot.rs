//! SVG figures (plotters, SVG backend: no font or system-library
//! dependency): predicted vs measured over time (the paper's Fig. 7), the
//! PCA scatter (Fig. 11) and importance bars.

use crate::PredictError;
use plotters::prelude::*;
use std::path::Path;

fn err(e: impl std::fmt::Display) -> PredictError {
    PredictError::Model(format!("plot: {e}"))
}

const COLORS: [RGBColor; 5] = [
    BLUE,
    RED,
    RGBColor(0, 150, 0),
    MAGENTA,
    RGBColor(200, 130, 0),
];

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(1e-9);
    (lo - pad, hi + pad)
}

/// The legend box every figure here draws, then the file written.
fn legend_and_present<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), PredictError> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Measured and predicted series over sample order.
pub fn predicted_vs_measured(
    path: &Path,
    title: &str,
    measured: &[f64],
    predicted: &[(String, Vec<f64>)],
) -> Result<(), PredictError> {
    let root = SVGBackend::new(path, (900, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (lo, hi) = range(
        measured
            .iter()
            .chain(predicted.iter().flat_map(|(_, p)| p.iter()))
            .copied(),
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0..measured.len().max(1), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("sample")
        .draw()
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            measured.iter().enumerate().map(|(i, v)| (i, *v)),
            BLACK.stroke_width(2),
        ))
        .map_err(err)?
        .label("measured")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    for (k, (name, p)) in predicted.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        chart
            .draw_series(LineSeries::new(
                p.iter().enumerate().map(|(i, v)| (i, *v)),
                c,
            ))
            .map_err(err)?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
    }
    legend_and_present(&mut chart, &root)
}

/// Points coloured by class.
pub fn pca_scatter(
    path: &Path,
    title: &str,
    points: &[[f64; 2]],
    class: &[usize],
    class_names: &[&str],
) -> Result<(), PredictError> {
    let root = SVGBackend::new(path, (640, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (x0, x1) = range(points.iter().map(|p| p[0]));
    let (y0, y1) = range(points.iter().map(|p| p[1]));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("PC1")
        .y_desc("PC2")
        .draw()
        .map_err(err)?;
    for (k, name) in class_names.iter().enumerate() {
        let c = COLORS[k % COLORS.len()];
        chart
            .draw_series(
                points
                    .iter()
                    .zip(class)
                    .filter(|(_, cl)| **cl == k)
                    .map(|(p, _)| Circle::new((p[0], p[1]), 3, c.filled())),
            )
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
    }
    legend_and_present(&mut chart, &root)
}

/// Horizontal bars, one per feature, largest first.
pub fn importance_bars(
    path: &Path,
    title: &str,
    names: &[String],
    values: &[f64],
) -> Result<(), PredictError> {
    let k = names.len().min(values.len()).min(20);
    let root = SVGBackend::new(path, (760, 60 + 24 * k.max(1) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let hi = values
        .iter()
        .take(k)
        .fold(0.0f64, |a, v| a.max(*v))
        .max(1e-12);
    let lo = values.iter().take(k).fold(0.0f64, |a, v| a.min(*v));
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(230)
        .build_cartesian_2d(lo..hi * 1.05, 0..k.max(1))
        .map_err(err)?;
    let labels: Vec<String> = names.iter().take(k).cloned().collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(k.max(1))
        .y_label_formatter(&|i| {
            labels
                .get(k.saturating_sub(1 + *i))
                .cloned()
                .unwrap_or_default()
        })
        .draw()
        .map_err(err)?;
    chart
        .draw_series((0..k).map(|i| {
            let row = k - 1 - i;
            Rectangle::new([(0.0, row), (values[i], row + 1)], BLUE.mix(0.7).filled())
        }))
        .map_err(err)?;
    root.present().map_err(err)
}
