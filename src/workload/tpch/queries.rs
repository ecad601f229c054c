//! The 22 queries (TPC-H clause 2.4), written once for every engine: dates
//! as literals (params.rs does their arithmetic), the year of a date and
//! nothing else through the engine's dialect, `substr` for Q22's country
//! code, and Q15's view named after its stream so that streams running it
//! at once do not meet. Row limits are the spec's (Q2 100, Q3 10, Q10 20,
//! Q18 100, Q21 100).

use super::params::Values;
use crate::db::Dialect;

/// The statements of query `q` with values `p` for stream `stream`: one,
/// or Q15's three (create the view, query it, drop it).
pub fn statements(q: u8, p: &Values, stream: usize, d: &dyn Dialect) -> Vec<String> {
    let v = |i: usize| p.get(i).map(String::as_str).unwrap_or("");
    let sql = match q {
        1 => format!(
            "select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty, sum(l_extendedprice) as sum_base_price, \
             sum(l_extendedprice * (1 - l_discount)) as sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, \
             avg(l_quantity) as avg_qty, avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order \
             from lineitem where l_shipdate <= '{}' group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus",
            v(0)
        ),
        2 => format!(
            "select s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment \
             from part, supplier, partsupp, nation, region \
             where p_partkey = ps_partkey and s_suppkey = ps_suppkey and p_size = {} and p_type like '%{}' \
             and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = '{}' \
             and ps_supplycost = (select min(ps_supplycost) from partsupp, supplier, nation, region \
             where p_partkey = ps_partkey and s_suppkey = ps_suppkey and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = '{}') \
             order by s_acctbal desc, n_name, s_name, p_partkey limit 100",
            v(0),
            v(1),
            v(2),
            v(2)
        ),
        3 => format!(
            "select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue, o_orderdate, o_shippriority \
             from customer, orders, lineitem \
             where c_mktsegment = '{}' and c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate < '{}' and l_shipdate > '{}' \
             group by l_orderkey, o_orderdate, o_shippriority order by revenue desc, o_orderdate limit 10",
            v(0),
            v(1),
            v(1)
        ),
        4 => format!(
            "select o_orderpriority, count(*) as order_count from orders \
             where o_orderdate >= '{}' and o_orderdate < '{}' \
             and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate) \
             group by o_orderpriority order by o_orderpriority",
            v(0),
            v(1)
        ),
        5 => format!(
            "select n_name, sum(l_extendedprice * (1 - l_discount)) as revenue \
             from customer, orders, lineitem, supplier, nation, region \
             where c_custkey = o_custkey and l_orderkey = o_orderkey and l_suppkey = s_suppkey and c_nationkey = s_nationkey \
             and s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = '{}' and o_orderdate >= '{}' and o_orderdate < '{}' \
             group by n_name order by revenue desc",
            v(0),
            v(1),
            v(2)
        ),
        6 => format!(
            "select sum(l_extendedprice * l_discount) as revenue from lineitem \
             where l_shipdate >= '{}' and l_shipdate < '{}' and l_discount between {} and {} and l_quantity < {}",
            v(0),
            v(1),
            v(2),
            v(3),
            v(4)
        ),
        7 => format!(
            "select supp_nation, cust_nation, l_year, sum(volume) as revenue from (\
             select n1.n_name as supp_nation, n2.n_name as cust_nation, {} as l_year, l_extendedprice * (1 - l_discount) as volume \
             from supplier, lineitem, orders, customer, nation n1, nation n2 \
             where s_suppkey = l_suppkey and o_orderkey = l_orderkey and c_custkey = o_custkey and s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey \
             and ((n1.n_name = '{a}' and n2.n_name = '{b}') or (n1.n_name = '{b}' and n2.n_name = '{a}')) \
             and l_shipdate between '1995-01-01' and '1996-12-31') as shipping \
             group by supp_nation, cust_nation, l_year order by supp_nation, cust_nation, l_year",
            d.year_of("l_shipdate"),
            a = v(0),
            b = v(1)
        ),
        8 => format!(
            "select o_year, sum(case when nation = '{}' then volume else 0 end) / sum(volume) as mkt_share from (\
             select {} as o_year, l_extendedprice * (1 - l_discount) as volume, n2.n_name as nation \
             from part, supplier, lineitem, orders, customer, nation n1, nation n2, region \
             where p_partkey = l_partkey and s_suppkey = l_suppkey and l_orderkey = o_orderkey and o_custkey = c_custkey \
             and c_nationkey = n1.n_nationkey and n1.n_regionkey = r_regionkey and r_name = '{}' and s_nationkey = n2.n_nationkey \
             and o_orderdate between '1995-01-01' and '1996-12-31' and p_type = '{}') as all_nations \
             group by o_year order by o_year",
            v(0),
            d.year_of("o_orderdate"),
            v(1),
            v(2)
        ),
        9 => format!(
            "select nation, o_year, sum(amount) as sum_profit from (\
             select n_name as nation, {} as o_year, l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount \
             from part, supplier, lineitem, partsupp, orders, nation \
             where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey and p_partkey = l_partkey \
             and o_orderkey = l_orderkey and s_nationkey = n_nationkey and p_name like '%{}%') as profit \
             group by nation, o_year order by nation, o_year desc",
            d.year_of("o_orderdate"),
            v(0)
        ),
        10 => format!(
            "select c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) as revenue, c_acctbal, n_name, c_address, c_phone, c_comment \
             from customer, orders, lineitem, nation \
             where c_custkey = o_custkey and l_orderkey = o_orderkey and o_orderdate >= '{}' and o_orderdate < '{}' \
             and l_returnflag = 'R' and c_nationkey = n_nationkey \
             group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment order by revenue desc limit 20",
            v(0),
            v(1)
        ),
        11 => format!(
            "select ps_partkey, sum(ps_supplycost * ps_availqty) as value from partsupp, supplier, nation \
             where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = '{n}' \
             group by ps_partkey having sum(ps_supplycost * ps_availqty) > (\
             select sum(ps_supplycost * ps_availqty) * {} from partsupp, supplier, nation \
             where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = '{n}') \
             order by value desc",
            v(1),
            n = v(0)
        ),
        12 => format!(
            "select l_shipmode, sum(case when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1 else 0 end) as high_line_count, \
             sum(case when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1 else 0 end) as low_line_count \
             from orders, lineitem \
             where o_orderkey = l_orderkey and l_shipmode in ('{}', '{}') and l_commitdate < l_receiptdate and l_shipdate < l_commitdate \
             and l_receiptdate >= '{}' and l_receiptdate < '{}' group by l_shipmode order by l_shipmode",
            v(0),
            v(1),
            v(2),
            v(3)
        ),
        13 => format!(
            "select c_count, count(*) as custdist from (\
             select c_custkey, count(o_orderkey) as c_count from customer left outer join orders \
             on c_custkey = o_custkey and o_comment not like '%{}%{}%' group by c_custkey) as c_orders \
             group by c_count order by custdist desc, c_count desc",
            v(0),
            v(1)
        ),
        14 => format!(
            "select 100.00 * sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end) \
             / sum(l_extendedprice * (1 - l_discount)) as promo_revenue from lineitem, part \
             where l_partkey = p_partkey and l_shipdate >= '{}' and l_shipdate < '{}'",
            v(0),
            v(1)
        ),
        15 => {
            let view = format!("revenue{stream}");
            return vec![
                format!(
                    "create view {view} (supplier_no, total_revenue) as select l_suppkey, sum(l_extendedprice * (1 - l_discount)) \
                     from lineitem where l_shipdate >= '{}' and l_shipdate < '{}' group by l_suppkey",
                    v(0),
                    v(1)
                ),
                format!(
                    "select s_suppkey, s_name, s_address, s_phone, total_revenue from supplier, {view} \
                     where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from {view}) order by s_suppkey"
                ),
                format!("drop view {view}"),
            ];
        }
        16 => format!(
            "select p_brand, p_type, p_size, count(distinct ps_suppkey) as supplier_cnt from partsupp, part \
             where p_partkey = ps_partkey and p_brand <> '{}' and p_type not like '{}%' and p_size in ({}) \
             and ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%') \
             group by p_brand, p_type, p_size order by supplier_cnt desc, p_brand, p_type, p_size",
            v(0),
            v(1),
            p.get(2..).unwrap_or_default().join(", ")
        ),
        17 => format!(
            "select sum(l_extendedprice) / 7.0 as avg_yearly from lineitem, part \
             where p_partkey = l_partkey and p_brand = '{}' and p_container = '{}' \
             and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)",
            v(0),
            v(1)
        ),
        18 => format!(
            "select c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity) from customer, orders, lineitem \
             where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > {}) \
             and c_custkey = o_custkey and o_orderkey = l_orderkey \
             group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice order by o_totalprice desc, o_orderdate limit 100",
            v(0)
        ),
        19 => {
            let arm = |brand: &str, containers: &str, qty: &str, size: u32| {
                format!(
                    "(p_partkey = l_partkey and p_brand = '{brand}' and p_container in ({containers}) and l_quantity >= {qty} and l_quantity <= {qty} + 10 \
                     and p_size between 1 and {size} and l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON')"
                )
            };
            format!(
                "select sum(l_extendedprice * (1 - l_discount)) as revenue from lineitem, part where {} or {} or {}",
                arm(v(3), "'SM CASE', 'SM BOX', 'SM PACK', 'SM PKG'", v(0), 5),
                arm(v(4), "'MED BAG', 'MED BOX', 'MED PKG', 'MED PACK'", v(1), 10),
                arm(v(5), "'LG CASE', 'LG BOX', 'LG PACK', 'LG PKG'", v(2), 15)
            )
        }
        20 => format!(
            "select s_name, s_address from supplier, nation \
             where s_suppkey in (select ps_suppkey from partsupp where ps_partkey in (select p_partkey from part where p_name like '{}%') \
             and ps_availqty > (select 0.5 * sum(l_quantity) from lineitem \
             where l_partkey = ps_partkey and l_suppkey = ps_suppkey and l_shipdate >= '{}' and l_shipdate < '{}')) \
             and s_nationkey = n_nationkey and n_name = '{}' order by s_name",
            v(0),
            v(1),
            v(2),
            v(3)
        ),
        21 => format!(
            "select s_name, count(*) as numwait from supplier, lineitem l1, orders, nation \
             where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F' and l1.l_receiptdate > l1.l_commitdate \
             and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey) \
             and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate) \
             and s_nationkey = n_nationkey and n_name = '{}' group by s_name order by numwait desc, s_name limit 100",
            v(0)
        ),
        22 => {
            let codes = p.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ");
            format!(
                "select cntrycode, count(*) as numcust, sum(c_acctbal) as totacctbal from (\
                 select substr(c_phone, 1, 2) as cntrycode, c_acctbal from customer \
                 where substr(c_phone, 1, 2) in ({codes}) \
                 and c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00 and substr(c_phone, 1, 2) in ({codes})) \
                 and not exists (select * from orders where o_custkey = c_custkey)) as custsale \
                 group by cntrycode order by cntrycode"
            )
        }
        _ => String::new(),
    };
    vec![sql]
}

/// Which statement of [`statements`] returns the answer (Q15's second).
pub fn answer_index(q: u8) -> usize {
    usize::from(q == 15)
}

/// The spec's query orders (Appendix A): row 0 is the power test's
/// stream, row s the throughput test's stream s (streams past 40 wrap).
pub const ORDERS: [[u8; 22]; 41] = [
    [14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12],
    [21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4],
    [6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21],
    [8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3],
    [5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20],
    [21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9],
    [10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21],
    [18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12],
    [19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11],
    [8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16],
    [6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5],
    [15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7],
    [1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15],
    [21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19],
    [2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6],
    [16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18],
    [1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21],
    [3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12],
    [14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16],
    [4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1],
    [16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8],
    [20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2],
    [16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17],
    [18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7],
    [7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16],
    [18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9],
    [13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16],
    [14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19],
    [10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11],
    [10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4],
    [7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2],
    [2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22],
    [15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2],
    [15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1],
    [1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2],
    [14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11],
    [9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19],
    [13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20],
    [20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9],
    [3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2],
    [13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_order_is_a_permutation_of_the_22() {
        for row in ORDERS {
            let mut r = row.to_vec();
            r.sort_unstable();
            assert_eq!(r, (1..=22).collect::<Vec<u8>>());
        }
    }
}
