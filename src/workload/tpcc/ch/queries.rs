//! CH-benCHmark's 22 analytic queries: TPC-H's questions asked of TPC-C's
//! tables, joined to SUPPLIER, NATION and REGION as go-tpc's `ch` joins
//! them (a stock row's supplier is (s_w_id * s_i_id) mod 10000; a
//! customer's nation is the code of c_state's first letter less 65), with
//! its date bounds, so that the two tools run the same work. Written once
//! for every engine: the dialect gives only the year of a timestamp and a
//! character's code. Q15's view is written in place as a derived table.

use super::tables::ChNames;
use crate::db::Dialect;

/// The SQL of query `q` (1..=22) over the tables of `n`.
pub fn sql(q: u8, n: &ChNames, d: &dyn Dialect) -> String {
    let t = &n.tpcc;
    let (c, o, no, ol, s, i) = (&t.customer, &t.orders, &t.new_orders, &t.order_line, &t.stock, &t.item);
    let (su, na, re) = (&n.supplier, &n.nation, &n.region);
    let year = d.year_of("o_entry_d");
    let cust_nation = format!("{} - 65", d.char_code("substr(c_state, 1, 1)"));
    let supp = "(s_w_id * s_i_id) % 10000";
    match q {
        1 => format!(
            "SELECT ol_number, SUM(ol_quantity) AS sum_qty, SUM(ol_amount) AS sum_amount, AVG(ol_quantity) AS avg_qty, AVG(ol_amount) AS avg_amount, COUNT(*) AS count_order \
             FROM {ol} WHERE ol_delivery_d > '2007-01-02 00:00:00' GROUP BY ol_number ORDER BY ol_number"
        ),
        2 => format!(
            "SELECT su.s_suppkey, su.s_name, n_name, i_id, i_name, su.s_address, su.s_phone, su.s_comment \
             FROM {i}, {su} su, {s} st, {na}, {re}, \
              (SELECT s_i_id AS m_i_id, MIN(s_quantity) AS m_s_quantity FROM {s}, {su} s2, {na}, {re} \
               WHERE {supp} = s2.s_suppkey AND s2.s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name LIKE 'EUROP%' GROUP BY s_i_id) m \
             WHERE i_id = st.s_i_id AND (st.s_w_id * st.s_i_id) % 10000 = su.s_suppkey AND su.s_nationkey = n_nationkey AND n_regionkey = r_regionkey \
               AND i_data LIKE '%b' AND r_name LIKE 'EUROP%' AND i_id = m_i_id AND st.s_quantity = m_s_quantity \
             ORDER BY n_name, su.s_name, i_id"
        ),
        3 => format!(
            "SELECT ol_o_id, ol_w_id, ol_d_id, SUM(ol_amount) AS revenue, o_entry_d FROM {c}, {no}, {o}, {ol} \
             WHERE c_state LIKE 'a%' AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id \
               AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND o_entry_d > '2007-01-02 00:00:00' \
             GROUP BY ol_o_id, ol_w_id, ol_d_id, o_entry_d ORDER BY revenue DESC, o_entry_d"
        ),
        4 => format!(
            "SELECT o_ol_cnt, COUNT(*) AS order_count FROM {o} \
             WHERE o_entry_d >= '2007-01-02 00:00:00' AND o_entry_d < '2032-01-02 00:00:00' \
               AND EXISTS (SELECT * FROM {ol} WHERE o_id = ol_o_id AND o_w_id = ol_w_id AND o_d_id = ol_d_id AND ol_delivery_d >= o_entry_d) \
             GROUP BY o_ol_cnt ORDER BY o_ol_cnt"
        ),
        5 => format!(
            "SELECT n_name, SUM(ol_amount) AS revenue FROM {c}, {o}, {ol}, {s}, {su}, {na}, {re} \
             WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND ol_o_id = o_id AND ol_w_id = o_w_id AND ol_d_id = o_d_id \
               AND ol_w_id = s_w_id AND ol_i_id = s_i_id AND {supp} = s_suppkey AND {cust_nation} = s_nationkey \
               AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'EUROPE' AND o_entry_d >= '2007-01-02 00:00:00' \
             GROUP BY n_name ORDER BY revenue DESC"
        ),
        6 => format!(
            "SELECT SUM(ol_amount) AS revenue FROM {ol} \
             WHERE ol_delivery_d >= '1997-01-01 00:00:00' AND ol_delivery_d < '2030-01-01 00:00:00' AND ol_quantity BETWEEN 1 AND 100000"
        ),
        7 => format!(
            "SELECT s_nationkey AS supp_nation, substr(c_state, 1, 1) AS cust_nation, {year} AS l_year, SUM(ol_amount) AS revenue \
             FROM {su}, {s}, {ol}, {o}, {c}, {na} n1, {na} n2 \
             WHERE ol_supply_w_id = s_w_id AND ol_i_id = s_i_id AND {supp} = s_suppkey AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
               AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND s_nationkey = n1.n_nationkey AND {cust_nation} = n2.n_nationkey \
               AND ((n1.n_name = 'JAPAN' AND n2.n_name = 'CHINA') OR (n1.n_name = 'CHINA' AND n2.n_name = 'JAPAN')) \
               AND ol_delivery_d BETWEEN '2007-01-02 00:00:00' AND '2032-01-02 00:00:00' \
             GROUP BY s_nationkey, substr(c_state, 1, 1), {year} ORDER BY s_nationkey, cust_nation, l_year"
        ),
        8 => format!(
            "SELECT {year} AS l_year, SUM(CASE WHEN n2.n_name = 'INDIA' THEN ol_amount ELSE 0 END) / SUM(ol_amount) AS mkt_share \
             FROM {i}, {su}, {s}, {ol}, {o}, {c}, {na} n1, {na} n2, {re} \
             WHERE i_id = s_i_id AND ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND {supp} = s_suppkey AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
               AND c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND n1.n_nationkey = {cust_nation} AND n1.n_regionkey = r_regionkey \
               AND ol_i_id < 1000 AND r_name = 'ASIA' AND s_nationkey = n2.n_nationkey AND o_entry_d BETWEEN '2007-01-02 00:00:00' AND '2032-01-02 00:00:00' AND i_id = ol_i_id \
             GROUP BY {year} ORDER BY l_year"
        ),
        9 => format!(
            "SELECT n_name, {year} AS l_year, SUM(ol_amount) AS sum_profit FROM {i}, {s}, {su}, {ol}, {o}, {na} \
             WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND {supp} = s_suppkey AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
               AND ol_i_id = i_id AND s_nationkey = n_nationkey AND i_data LIKE '%BB' \
             GROUP BY n_name, {year} ORDER BY n_name, l_year DESC"
        ),
        10 => format!(
            "SELECT c_id, c_last, SUM(ol_amount) AS revenue, c_city, c_phone, n_name FROM {c}, {o}, {ol}, {na} \
             WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
               AND o_entry_d >= '2007-01-02 00:00:00' AND o_entry_d <= ol_delivery_d AND n_nationkey = {cust_nation} \
             GROUP BY c_id, c_last, c_city, c_phone, n_name ORDER BY revenue DESC"
        ),
        11 => format!(
            "SELECT s_i_id, SUM(s_order_cnt) AS ordercount FROM {s}, {su}, {na} \
             WHERE {supp} = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'CHINA' GROUP BY s_i_id \
             HAVING SUM(s_order_cnt) > (SELECT SUM(s_order_cnt) * 0.005 FROM {s}, {su}, {na} WHERE {supp} = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'CHINA') \
             ORDER BY ordercount DESC"
        ),
        12 => format!(
            "SELECT o_ol_cnt, SUM(CASE WHEN o_carrier_id = 1 OR o_carrier_id = 2 THEN 1 ELSE 0 END) AS high_line_count, \
               SUM(CASE WHEN o_carrier_id <> 1 AND o_carrier_id <> 2 THEN 1 ELSE 0 END) AS low_line_count FROM {o}, {ol} \
             WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND o_entry_d <= ol_delivery_d AND ol_delivery_d < '2030-01-01 00:00:00' \
             GROUP BY o_ol_cnt ORDER BY o_ol_cnt"
        ),
        13 => format!(
            "SELECT c_count, COUNT(*) AS custdist FROM \
              (SELECT c_id, COUNT(o_id) AS c_count FROM {c} LEFT OUTER JOIN {o} ON (c_w_id = o_w_id AND c_d_id = o_d_id AND c_id = o_c_id AND o_carrier_id > 8) GROUP BY c_id) c_orders \
             GROUP BY c_count ORDER BY custdist DESC, c_count DESC"
        ),
        14 => format!(
            "SELECT 100.00 * SUM(CASE WHEN i_data LIKE 'PR%' THEN ol_amount ELSE 0 END) / (1 + SUM(ol_amount)) AS promo_revenue FROM {ol}, {i} \
             WHERE ol_i_id = i_id AND ol_delivery_d >= '2007-01-02 00:00:00' AND ol_delivery_d < '2030-01-02 00:00:00'"
        ),
        15 => {
            let rv = revenue(n);
            format!("SELECT s_suppkey, s_name, s_address, s_phone, total_revenue FROM {su}, {rv} rv WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM {rv} rv2) ORDER BY s_suppkey")
        }
        16 => format!(
            "SELECT i_name, substr(i_data, 1, 3) AS brand, i_price, COUNT(DISTINCT {supp}) AS supplier_cnt FROM {s}, {i} \
             WHERE i_id = s_i_id AND i_data NOT LIKE 'zz%' AND ({supp} NOT IN (SELECT s_suppkey FROM {su} WHERE s_comment LIKE '%bad%')) \
             GROUP BY i_name, substr(i_data, 1, 3), i_price ORDER BY supplier_cnt DESC"
        ),
        17 => format!(
            "SELECT SUM(ol_amount) / 2.0 AS avg_yearly FROM {ol}, \
              (SELECT i_id, AVG(ol_quantity) AS a FROM {i}, {ol} WHERE i_data LIKE '%b' AND ol_i_id = i_id GROUP BY i_id) t \
             WHERE ol_i_id = t.i_id AND ol_quantity < t.a"
        ),
        18 => format!(
            "SELECT c_last, c_id, o_id, o_entry_d, o_ol_cnt, SUM(ol_amount) AS amount FROM {c}, {o}, {ol} \
             WHERE c_id = o_c_id AND c_w_id = o_w_id AND c_d_id = o_d_id AND ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
             GROUP BY o_id, o_w_id, o_d_id, c_id, c_last, o_entry_d, o_ol_cnt HAVING SUM(ol_amount) > 200 ORDER BY amount DESC, o_entry_d"
        ),
        19 => {
            let arm =
                |suffix: char, whs: &str| format!("(ol_i_id = i_id AND i_data LIKE '%{suffix}' AND ol_quantity >= 1 AND ol_quantity <= 10 AND i_price BETWEEN 1 AND 400000 AND ol_w_id IN ({whs}))");
            format!("SELECT SUM(ol_amount) AS revenue FROM {ol}, {i} WHERE {} OR {} OR {}", arm('a', "1,2,3"), arm('b', "1,2,4"), arm('c', "1,5,3"))
        }
        20 => format!(
            "SELECT s_name, s_address FROM {su}, {na} \
             WHERE s_suppkey IN (SELECT (s_i_id * s_w_id) % 10000 FROM {s}, {ol} \
                 WHERE s_i_id IN (SELECT i_id FROM {i} WHERE i_data LIKE 'co%') AND ol_i_id = s_i_id AND ol_delivery_d > '2010-05-23 12:00:00' \
                 GROUP BY s_i_id, s_w_id, s_quantity HAVING 2 * s_quantity > SUM(ol_quantity)) \
               AND s_nationkey = n_nationkey AND n_name = 'CHINA' ORDER BY s_name"
        ),
        21 => format!(
            "SELECT s_name, COUNT(*) AS numwait FROM {su}, {ol} l1, {o}, {s}, {na} \
             WHERE l1.ol_o_id = o_id AND l1.ol_w_id = o_w_id AND l1.ol_d_id = o_d_id AND l1.ol_w_id = s_w_id AND l1.ol_i_id = s_i_id AND {supp} = s_suppkey \
               AND l1.ol_delivery_d > o_entry_d \
               AND NOT EXISTS (SELECT * FROM {ol} l2 WHERE l2.ol_o_id = l1.ol_o_id AND l2.ol_w_id = l1.ol_w_id AND l2.ol_d_id = l1.ol_d_id AND l2.ol_delivery_d > l1.ol_delivery_d) \
               AND s_nationkey = n_nationkey AND n_name = 'CHINA' \
             GROUP BY s_name ORDER BY numwait DESC, s_name"
        ),
        _ => format!(
            "SELECT substr(c_state, 1, 1) AS country, COUNT(*) AS numcust, SUM(c_balance) AS totacctbal FROM {c} \
             WHERE substr(c_phone, 1, 1) IN ('1','2','3','4','5','6','7') \
               AND c_balance > (SELECT AVG(c_balance) FROM {c} WHERE c_balance > 0.00 AND substr(c_phone, 1, 1) IN ('1','2','3','4','5','6','7')) \
               AND NOT EXISTS (SELECT * FROM {o} WHERE o_c_id = c_id AND o_w_id = c_w_id AND o_d_id = c_d_id) \
             GROUP BY substr(c_state, 1, 1) ORDER BY substr(c_state, 1, 1)"
        ),
    }
}

/// What Q15 reads, each supplier's revenue from delivered lines: the
/// spec's view, written in place (a view is DDL that not every engine
/// takes, and each engine expands it the same way).
fn revenue(n: &ChNames) -> String {
    let (ol, s) = (&n.tpcc.order_line, &n.tpcc.stock);
    format!(
        "(SELECT (s_w_id * s_i_id) % 10000 AS supplier_no, SUM(ol_amount) AS total_revenue \
         FROM {ol}, {s} WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND ol_delivery_d >= '2007-01-02 00:00:00' GROUP BY (s_w_id * s_i_id) % 10000)"
    )
}
