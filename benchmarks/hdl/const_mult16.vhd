-- 16x16 constant-coefficient multiplier: a regular 16-bit operand times a 16-bit parameter operand
-- (the coefficient, changed rarely), built as a tree multiplier (tree_mult.vhd: partial-product rows
-- summed by a balanced adder tree; TREE = false: written as x * coef).
library ieee;
use ieee.std_logic_1164.all;

entity const_mult16 is
  generic (TREE : boolean := true);
  port (
    x    : in  std_logic_vector(15 downto 0);
    coef : in  std_logic_vector(15 downto 0); --PARAM
    y    : out std_logic_vector(31 downto 0)
  );
end entity;

architecture rtl of const_mult16 is
begin
  mul : entity work.tree_mult
    generic map (AW => 16, BW => 16, TREE => TREE)
    port map (a => x, b => coef, p => y);
end architecture;
