// The reports screen (reports.tsx).
export const ReportsDocument = /* GraphQL */ `
  query DashboardReports($currency: String!, $from: String!, $to: String!) {
    pnlReport(currency: $currency, from: $from, to: $to) {
      currency
      from
      to
      revenue {
        code
        amount
      }
      totalRevenue
      refunds
      fees
      tax
      netIncome
    }
    cashFlowReport(currency: $currency, from: $from, to: $to) {
      currency
      openingBalance
      inflows
      outflows
      closingBalance
      byDay {
        date
        inflows
        outflows
      }
    }
  }
`;
